"""Problems as ``<path>: <message>`` lines: pydantic errors with the file's hints, file order."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from casslab.experiment.file.experiment_model import Experiment
from casslab.experiment.file.file_problems import in_file_order, pydantic_problems


@pytest.mark.parametrize(
    ("data", "problems"),
    [
        (
            {"name": "x", "itertions": 3},
            ["itertions: unknown field 'itertions' (did you mean 'iterations'?)"],
        ),
        (
            {"name": "x", "table": {"gc_grace_secs": 3}},
            [
                "table.gc_grace_secs: unknown field 'gc_grace_secs' "
                "(did you mean 'gc_grace_seconds'?)"
            ],
        ),
        (
            {"name": "x", "schema": {"keyspace": "1ks"}},
            [
                "schema.keyspace: use letters, digits and '_' "
                "(at most 48, starting with a letter), got '1ks'"
            ],
        ),
        (
            {"name": "bad name!"},
            [
                "name: use letters, digits, '.', '_' or '-' (at most 64, starting with a letter or "
                "digit), got 'bad name!'"
            ],
        ),
        ({"name": "x", "iterations": 0}, ["iterations: must be >= 1, got 0"]),
    ],
)
def test_pydantic_problems(data: dict[str, Any], problems: list[str]) -> None:
    with pytest.raises(ValidationError) as caught:
        Experiment.model_validate(data)
    assert pydantic_problems(caught.value, data) == problems


def test_pydantic_problems_take_a_prefix() -> None:
    data = {"name": "x", "iterations": 0}
    with pytest.raises(ValidationError) as caught:
        Experiment.model_validate(data)
    assert pydantic_problems(caught.value, data, prefix=("extra_cells", 0)) == [
        "extra_cells[0].iterations: must be >= 1, got 0"
    ]


@pytest.mark.parametrize(
    ("problems", "keys", "ordered"),
    [
        (
            ["kpis[0]: a", "cluster.nodes: b", "factors.threads[1]: c", "cluster: d"],
            ["name", "cluster", "factors", "kpis"],
            ["cluster.nodes: b", "cluster: d", "factors.threads[1]: c", "kpis[0]: a"],
        ),
        # a field the file does not have goes last; the sort is stable
        (
            ["workload: a", "name: b", "workload: c"],
            ["name", "factors"],
            ["name: b", "workload: a", "workload: c"],
        ),
        ([], ["name"], []),
    ],
)
def test_in_file_order(problems: list[str], keys: list[Any], ordered: list[str]) -> None:
    assert in_file_order(problems, keys) == ordered
