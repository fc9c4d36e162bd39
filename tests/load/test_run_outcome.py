"""casslab.load.run_outcome: the failed operations and the read-back, in one line each."""

from __future__ import annotations

import pytest

from casslab.engine_contract.engine_records import (
    ErrorKind,
    ErrorRecord,
    OpStats,
    VerifyStats,
)
from casslab.engine_contract.workload_spec import Consistency
from casslab.load import run_outcome as render
from summary_literals import READ, TOTAL, WRITE, summary


def test_failed_operations_counts_failures_of_all_attempts_and_names_first_kinds() -> None:
    errors = [
        ErrorRecord(op="read", message="Unavailable: alive 1"),
        ErrorRecord(op="read", message="Unavailable: alive 1"),
        ErrorRecord(op="write", message="Timeout " + "x" * 300),
        ErrorRecord(op="write", message="third kind"),
        ErrorRecord(op="write", message="fourth kind"),
    ]
    line = render.failed_operations(summary(), errors)
    assert line is not None
    assert line.startswith("2 of 1,002 operations failed (read: 2); first errors: ")
    kinds = line.split("; first errors: ")[1].split("; ")
    assert kinds[0] == "read: Unavailable: alive 1"
    assert kinds[1] == "write: Timeout " + "x" * 231 + "…"  # 240 characters
    assert kinds[2] == "write: third kind"
    assert len(kinds) == render.FIRST_ERROR_KINDS


@pytest.mark.parametrize(
    ("total", "ops", "expected"),
    [
        (WRITE, {"write": WRITE}, None),
        (READ, {"read": READ}, "2 of 102 operations failed"),  # one op type: no breakdown
    ],
)
def test_failed_operations_without_samples(
    total: OpStats, ops: dict[str, OpStats], expected: str | None
) -> None:
    assert render.failed_operations(summary(total=total, ops=ops), []) == expected


def test_failed_operations_name_the_kinds_of_their_errors() -> None:
    kinds = {ErrorKind.UNAVAILABLE: 1500, ErrorKind.CLIENT_TIMEOUT: 2}
    total = TOTAL.model_copy(update={"errors": 1502, "errors_by_kind": kinds})
    line = render.failed_operations(summary(total=total, ops={"read": total}), [])
    assert line == (
        "1,502 of 2,502 operations failed; by kind: unavailable: 1,500, client_timeout: 2"
    )


def test_the_verify_line() -> None:
    verified = VerifyStats(
        consistency=Consistency.QUORUM, checked=8000, lost=3, errors=1, duration_s=0.44
    )
    assert render.verify_line(summary(verify=verified)) == (
        "verified 8,000 acknowledged writes at QUORUM: 3 lost, 1 unverified (read errors), 0.4 s"
    )
    assert "interrupted" in render.verify_line(summary())
