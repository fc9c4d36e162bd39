"""The workload-spec contract, Python side: the fixtures in ``engine/contract/``.

Every spec in ``valid/`` is accepted by :class:`WorkloadSpec`; every case in ``invalid/``
(``{"rule", "reason", "spec"}``) is refused with a message containing ``reason``. The
engine runs the same files (``engine/src/spec/contract.rs``), so a rule that changes on
one side only fails one of the two suites.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from casslab.engine_contract.workload_spec import WorkloadSpec

CONTRACT = Path(__file__).resolve().parents[2] / "engine" / "contract"
VALID = sorted((CONTRACT / "valid").glob("*.json"))
INVALID = sorted((CONTRACT / "invalid").glob("*.json"))


def load(path: Path) -> Any:
    return json.loads(path.read_text())


def test_the_fixture_set_is_there() -> None:
    # An empty or moved folder would otherwise parametrize to nothing and pass.
    assert len(VALID) >= 10
    assert len(INVALID) >= 12


@pytest.mark.parametrize("path", VALID, ids=lambda p: p.stem)
def test_valid_spec_is_accepted(path: Path) -> None:
    spec = WorkloadSpec.model_validate(load(path))
    # What casslab writes for the engine validates again unchanged.
    assert WorkloadSpec.model_validate_json(spec.model_dump_json()) == spec


@pytest.mark.parametrize("path", INVALID, ids=lambda p: p.stem)
def test_invalid_spec_is_refused_for_its_reason(path: Path) -> None:
    case = load(path)
    assert set(case) == {"rule", "reason", "spec"}
    reason = case["reason"]
    assert isinstance(reason, str)
    assert reason
    with pytest.raises(ValidationError) as caught:
        WorkloadSpec.model_validate(case["spec"])
    assert reason in str(caught.value)
