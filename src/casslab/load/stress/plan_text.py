"""What ``casslab stress ... --dry-run`` will send, in words: the schema statements run once
and each operation's prepared statements with their consistency, so a user can check a
profile before a run. Pure: a spec in, lines out (the CLI prints them on stderr, keeping
stdout the engine spec as JSON)."""

from __future__ import annotations

from casslab.engine_contract.workload_spec import Operation, WorkloadSpec


def _operation_head(operation: Operation) -> str:
    parts = [
        operation.kind.value,
        f"weight {operation.weight:g}",
        f"CL {operation.consistency.value}",
    ]
    if operation.serial_consistency is not None:
        parts.append(f"serial CL {operation.serial_consistency.value}")
    if operation.batch is not None:
        parts.append(f"{operation.batch.batch_type.value} batches")
    if operation.validate_columns:
        parts.append("rows read are checked")
    if operation.conditional:
        parts.append("lightweight transaction, [applied] counted")
    walk = operation.token_range
    if walk is not None:
        ring = f"each ring range in {walk.split_factor} pieces" if walk.split_factor > 1 else ""
        parts += [p for p in (ring, f"pages of {walk.page_size} rows") if p]
        parts.append("the ring again when done" if walk.wrap else "ends when the ring is read")
    return f"{operation.name} ({', '.join(parts)}):"


def plan_lines(spec: WorkloadSpec) -> list[str]:
    """The statements ``spec`` runs: schema first, then each operation's."""
    lines = ["Schema statements, run once in this order:"]
    lines += [f"  {cql};" for cql in spec.schema_cql] or ["  (none)"]
    lines += ["", f"Operations, prepared in keyspace {spec.keyspace or '(none)'}:"]
    for operation in spec.operations:
        lines.append("  " + _operation_head(operation))
        for statement in operation.statements:
            lines.append(f"    {statement.cql}")
            columns = [bind.column or bind.kind.value for bind in statement.binds]
            if columns:
                lines.append(f"      binds: {', '.join(columns)}")
        if operation.condition_binds:
            last = operation.statements[-1].binds
            read = ", ".join(last[p].column or str(p) for p in operation.condition_binds)
            lines.append(f"    the IF conditions take the values the SELECT reads: {read}")
    return lines
