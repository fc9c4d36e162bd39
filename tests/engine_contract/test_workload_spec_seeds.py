"""casslab.engine_contract.workload_spec: the two seeds, their range on both sides of the engine
boundary.

``seed`` (the operation sequence) and ``data_seed`` (the values written and validated) are
each 0 <= x < 2**63: the Python model refuses anything else with one message, and the
engine's ``--check`` refuses the same numbers with the same message (raw JSON, as a
hand-written spec would reach it).
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest
from pydantic import ValidationError

from casslab.engine_contract.engine_records import ErrorRecord
from casslab.engine_contract.workload_spec import (
    ClosedLoop,
    Connection,
    DistKind,
    Distribution,
    Generator,
    GenKind,
    Operation,
    OpKind,
    Statement,
    Stop,
    WorkloadSpec,
)
from casslab.load import engine
from cli_entry import NEEDS_ENGINE

Test = TypeVar("Test", bound=Callable[..., None])


def needs_engine(test: Test) -> Test:
    """Mark ``test`` as running the built engine (skipped when it is not built)."""
    for mark in NEEDS_ENGINE:
        test = mark(test)
    return test


SEEDS = ("seed", "data_seed")
OUT_OF_RANGE = (-1, 2**63, -(2**63))
EDGES = (0, 1, 2**63 - 1)


def spec_json(**seeds: int) -> dict[str, Any]:
    """A small valid spec as JSON, with ``seeds`` set as given (even out of range)."""
    spec = WorkloadSpec(
        connection=Connection(contact_points=["127.0.0.1:9042"]),
        operations=[
            Operation(
                name="write",
                kind=OpKind.WRITE,
                weight=1,
                statements=[
                    Statement(
                        cql="INSERT INTO ks.t (k, v) VALUES (?, ?)",
                        binds=[
                            Generator(kind=GenKind.KEY_BLOB, column="key"),
                            Generator(kind=GenKind.BLOB, column="v"),
                        ],
                    )
                ],
            )
        ],
        keys=Distribution(kind=DistKind.SEQ, min=1, max=100),
        rate=ClosedLoop(threads=1),
        stop=Stop(ops=100),
    )
    raw: dict[str, Any] = json.loads(spec.model_dump_json())
    return raw | seeds


def message(field: str, value: int) -> str:
    return f"{field} must be >= 0 and < 2**63 (got {value})"


def test_both_seeds_default_to_zero() -> None:
    raw = spec_json()
    del raw["seed"], raw["data_seed"]
    spec = WorkloadSpec.model_validate(raw)
    assert (spec.seed, spec.data_seed) == (0, 0)


@pytest.mark.parametrize("field", SEEDS)
@pytest.mark.parametrize("value", EDGES)
def test_seeds_in_range_are_accepted(field: str, value: int) -> None:
    spec = WorkloadSpec.model_validate(spec_json(**{field: value}))
    assert getattr(spec, field) == value


@pytest.mark.parametrize("field", SEEDS)
@pytest.mark.parametrize("value", OUT_OF_RANGE)
def test_seeds_out_of_range_are_refused(field: str, value: int) -> None:
    with pytest.raises(ValidationError) as refused:
        WorkloadSpec.model_validate(spec_json(**{field: value}))
    assert message(field, value) in str(refused.value)


def engine_check(tmp_path: Path, raw: dict[str, Any]) -> ErrorRecord | None:
    """``casslab-engine --check`` on raw JSON: None when accepted, else its fatal record."""
    path = tmp_path / "spec.json"
    path.write_text(json.dumps(raw))
    done = subprocess.run(
        [str(engine.engine_binary()), "--check", "--spec", str(path)],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    if done.returncode == 0:
        return None
    assert done.returncode == 2, done.stderr
    record = engine.parse_record(done.stdout.strip().splitlines()[-1])
    assert isinstance(record, ErrorRecord)
    assert record.fatal
    return record


@pytest.mark.parametrize("field", SEEDS)
@pytest.mark.parametrize("value", OUT_OF_RANGE)
@needs_engine
def test_the_engine_refuses_the_same_seeds_with_the_same_message(
    tmp_path: Path, field: str, value: int
) -> None:
    refused = engine_check(tmp_path, spec_json(**{field: value}))
    assert refused is not None, f"the engine accepted {field}={value}"
    assert message(field, value) in refused.message


@pytest.mark.parametrize("field", SEEDS)
@pytest.mark.parametrize("value", EDGES)
@needs_engine
def test_the_engine_accepts_the_seeds_python_accepts(
    tmp_path: Path, field: str, value: int
) -> None:
    assert engine_check(tmp_path, spec_json(**{field: value})) is None
