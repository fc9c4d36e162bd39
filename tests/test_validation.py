"""Pydantic errors in casslab's words: the field or option, the rule and its limit, the value."""

from __future__ import annotations

import pytest
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from casslab.validation import plain_message, validation_message, validation_problems


class Inner(BaseModel):
    model_config = ConfigDict(extra="forbid")

    seed: int = 0


class Spec(BaseModel):
    model_config = ConfigDict(extra="forbid")

    nodes: int = Field(default=1, ge=1, le=9)
    port: int = Field(default=7190, gt=1023, lt=65001)
    heap: str | None = None
    order: Inner | str = "sequential"

    @field_validator("heap")
    @classmethod
    def _heap(cls, value: str | None) -> str | None:
        if value == "64M":
            raise ValueError("heap '64M': Cassandra needs at least 256M")
        return value


def _error(**fields: object) -> ValidationError:
    with pytest.raises(ValidationError) as caught:
        Spec.model_validate(fields)
    return caught.value


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({"nodes": 10}, "nodes: must be <= 9, got 10"),
        ({"nodes": 0}, "nodes: must be >= 1, got 0"),
        ({"port": 80}, "port: must be > 1023, got 80"),
        ({"port": 70000}, "port: must be < 65001, got 70000"),
        ({"nodes": "lots"}, "nodes: expected an integer, got 'lots'"),
        ({"heap": "64M"}, "heap: heap '64M': Cassandra needs at least 256M"),
        ({"colour": "red"}, "colour: unknown field 'colour'"),
        ({"order": {"seed": "x"}}, "order.seed: expected an integer, got 'x'"),
    ],
)
def test_one_problem_per_field_without_library_wording(
    fields: dict[str, object], expected: str
) -> None:
    problems = validation_problems(_error(**fields), fields)
    assert problems == [expected]
    assert not any("Value error" in p or "Input should" in p for p in problems)


def test_names_map_fields_to_the_options_the_user_typed() -> None:
    error = _error(nodes=10, heap="64M")
    message = validation_message(error, names={"nodes": "--nodes", "heap": "--heap"})
    assert message == (
        "--nodes: must be <= 9, got 10; --heap: heap '64M': Cassandra needs at least 256M"
    )


def test_prefix_places_the_fields_in_a_larger_document() -> None:
    data = {"nodes": 10}
    assert validation_problems(_error(**data), data, prefix=("cluster",)) == [
        "cluster.nodes: must be <= 9, got 10"
    ]


def test_a_truncated_json_file_says_it_is_cut_short() -> None:
    with pytest.raises(ValidationError) as caught:
        Spec.model_validate_json('{"nodes": 3, "heap": "1')
    message = validation_message(caught.value)
    assert message.startswith("not valid JSON (")
    assert "cut short or corrupt" in message
    assert "Invalid JSON" not in message


def test_an_unknown_error_type_loses_the_library_prefixes() -> None:
    assert plain_message({"type": "value_error", "msg": "Value error, bad thing"}) == "bad thing"
    assert plain_message({"type": "assertion_error", "msg": "Assertion failed, no"}) == "no"
    assert (
        plain_message({"type": "url_parsing", "msg": "Input should be a valid URL", "input": 3})
        == "expected a valid URL, got 3"
    )
