"""What any front end's command says of a finished run, whatever its syntax: the operations
that failed and the first errors, and the read-back of acknowledged writes. Pure: records
in, strings out (the CLI prints them)."""

from __future__ import annotations

from casslab.engine_contract.engine_records import ErrorRecord, SummaryRecord

FIRST_ERROR_KINDS = 3
_ERROR_KIND_CHARS = 240


def failed_operations(summary: SummaryRecord, errors: list[ErrorRecord]) -> str | None:
    """How many operations failed of how many (per operation type when several failed) and
    the first distinct error messages sampled; None when every operation succeeded."""
    failed = summary.total.errors
    if failed == 0:
        return None
    line = f"{failed:,} of {summary.total.count + failed:,} operations failed"
    by_op = [(name, stats.errors) for name, stats in sorted(summary.ops.items()) if stats.errors]
    if len(summary.ops) > 1:
        line += " (" + ", ".join(f"{name}: {count:,}" for name, count in by_op) + ")"
    by_kind = summary.total.errors_by_kind
    if by_kind:
        line += "; by kind: " + ", ".join(f"{k.value}: {n:,}" for k, n in by_kind.items())
    kinds: list[str] = []
    for record in errors:
        message = record.message
        if len(message) > _ERROR_KIND_CHARS:
            message = message[: _ERROR_KIND_CHARS - 1] + "…"
        kind = (f"{record.op}: " if record.op else "") + message
        if kind not in kinds:
            kinds.append(kind)
    if kinds:
        line += "; first errors: " + "; ".join(kinds[:FIRST_ERROR_KINDS])
    return line


def verify_line(summary: SummaryRecord) -> str:
    """The read-back of acknowledged writes in one line (``--verify``)."""
    v = summary.verify
    if v is None:
        return "acknowledged writes not verified: the run was interrupted"
    return (
        f"verified {v.checked:,} acknowledged writes at {v.consistency.value}: {v.lost:,} lost, "
        f"{v.errors:,} unverified (read errors), {v.duration_s:.1f} s"
    )
