"""Reading a file's YAML (here an experiment file's): syntax errors and duplicate keys with
their lines."""

from __future__ import annotations

from typing import Any

import pytest

from casslab.errors import ExperimentValidationError
from casslab.yaml_reader import parse_yaml


@pytest.mark.parametrize(
    ("text", "data"),
    [
        ("name: demo\nworkload: write\n", {"name": "demo", "workload": "write"}),
        ("", None),
        ("- a\n- b\n", ["a", "b"]),
        # a merge key is not a duplicate of the keys it brings in
        ("base: &b {x: 1}\nother: {<<: *b, y: 2}\n", {"base": {"x": 1}, "other": {"x": 1, "y": 2}}),
    ],
)
def test_parse_yaml(text: str, data: Any) -> None:
    assert parse_yaml(text, "e.yaml") == data


@pytest.mark.parametrize(
    ("text", "problems"),
    [
        (
            "name: demo\nworkload: write\niterations: 2\niterations: 3\n",
            ["line 4, column 1: duplicate key 'iterations' (first at line 3); keep one"],
        ),
        (
            "name: a\ncluster: {nodes: 1, nodes: 2}\nname: b\n",
            [
                # the outer mapping is checked before the mappings inside it
                "line 3, column 1: duplicate key 'name' (first at line 1); keep one",
                "line 2, column 21: duplicate key 'nodes' (first at line 2); keep one",
            ],
        ),
    ],
)
def test_duplicate_keys_are_reported_with_lines(text: str, problems: list[str]) -> None:
    with pytest.raises(ExperimentValidationError) as caught:
        parse_yaml(text, "e.yaml", ExperimentValidationError)
    assert caught.value.problems == problems
    assert caught.value.source == "e.yaml"


def test_yaml_syntax_error_has_line_and_column() -> None:
    with pytest.raises(ExperimentValidationError) as caught:
        parse_yaml(
            "name: demo\nfactors:\n  threads: [1, 2\nworkload: write\n",
            "e.yaml",
            ExperimentValidationError,
        )
    assert len(caught.value.problems) == 1
    assert caught.value.problems[0].startswith("line 4, column 9: YAML syntax:")


def test_bounds_are_checked_before_any_recursion() -> None:
    import pytest

    from casslab.errors import DocumentProblemsError
    from casslab.yaml_reader import MAX_YAML_ALIASES, MAX_YAML_DEPTH, parse_yaml

    bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [" + ", ".join([f"*{chr(97 + i)}"] * 10) + "]\n"
        for i in range(8)
    )
    cases = {
        "[" * 100_000 + "]" * 100_000: f"nested more than {MAX_YAML_DEPTH} levels deep",
        bomb: "values once its aliases (*name) are expanded",
        "x: &x 1\n" + "".join(f"k{i}: *x\n" for i in range(MAX_YAML_ALIASES + 1)): (
            f"more than {MAX_YAML_ALIASES} aliases"
        ),
    }
    for text, said in cases.items():
        with pytest.raises(
            DocumentProblemsError,
            match=said.replace("*", r"\*").replace("(", r"\(").replace(")", r"\)"),
        ):
            parse_yaml(text, "f.yaml")
    assert parse_yaml("a: &a [1]\nb: *a\n", "f.yaml") == {"a": [1], "b": [1]}
