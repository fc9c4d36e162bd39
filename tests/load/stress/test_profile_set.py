"""Several user profiles in one run: profile=a.yaml,b.yaml with ops(SPEC.OP=W)."""

from __future__ import annotations

from pathlib import Path

import pytest

from casslab.engine_contract.workload_spec import Connection, Consistency, OpKind
from casslab.errors import WorkloadSyntaxError
from casslab.load.stress.parse import parse_stress
from casslab.load.stress.profile import load_profile, parse_profile
from casslab.load.stress.profile_set import profile_paths, set_operations, set_schema

TOOLS = Path(__file__).parent / "data" / "cassandra-tools"
LWT = TOOLS / "stress-lwt-example.yaml"
COUNTER = TOOLS / "cqlstress-counter-example.yaml"


def test_operations_are_named_by_spec_and_built_from_their_profile() -> None:
    profiles = [(load_profile(LWT), "lwt.yaml"), (load_profile(COUNTER), "counter.yaml")]
    weights = {
        "stresscql.blogposts.insert": 1.0,
        "stresscql.counttest.insert": 2.0,
        "singlepost": 1.0,
    }
    ops = set_operations(profiles, weights, Consistency.ONE)
    assert [(o.name, o.kind, o.weight) for o in ops] == [
        ("stresscql.blogposts.insert", OpKind.WRITE, 1.0),
        ("stresscql.counttest.insert", OpKind.COUNTER_WRITE, 2.0),
        ("singlepost", OpKind.READ, 1.0),  # a plain name: the first profile's
    ]
    assert "stresscql.blogposts" in ops[0].statements[0].cql
    assert "stresscql.counttest" in ops[1].statements[0].cql


def test_specname_names_a_profile() -> None:
    named = parse_profile("specname: ex1\n" + LWT.read_text())
    assert named.specname == "ex1"
    ops = set_operations(
        [(named, "a.yaml"), (load_profile(COUNTER), "b.yaml")],
        {"ex1.updatewithlwt": 1.0, "stresscql.counttest.insert": 1.0},
        Consistency.ONE,
    )
    assert ops[0].name == "ex1.updatewithlwt"
    assert ops[0].conditional


def test_a_query_named_with_a_dot_is_one_of_the_first_profile() -> None:
    text = LWT.read_text().replace("   singlepost:", "   single.post:")
    [op] = set_operations([(parse_profile(text), "a.yaml")], {"single.post": 1.0}, Consistency.ONE)
    assert (op.name, op.kind) == ("single.post", OpKind.READ)


def test_the_schema_is_each_profiles_once() -> None:
    lwt = load_profile(LWT)
    schema = set_schema([(lwt, "a"), (load_profile(COUNTER), "b"), (lwt, "c")])
    tables = [s.split("(")[0].split()[-1] for s in schema if s.startswith("CREATE TABLE")]
    assert tables == ["stresscql.blogposts", "stresscql.counttest"]


@pytest.mark.parametrize(
    ("weights", "message"),
    [
        (
            {"nosuch.insert": 1.0},
            "user ops(nosuch.insert=...): 'nosuch' names no profile of this run; the profiles "
            "are stresscql.blogposts, stresscql.counttest",
        ),
        (
            {"stresscql.counttest.nosuch": 1.0},
            "user ops(nosuch=...): 'nosuch' is not insert or a query of profile counter.yaml",
        ),
    ],
)
def test_unknown_names_are_refused(weights: dict[str, float], message: str) -> None:
    profiles = [(load_profile(LWT), "lwt.yaml"), (load_profile(COUNTER), "counter.yaml")]
    with pytest.raises(WorkloadSyntaxError) as error:
        set_operations(profiles, weights, Consistency.ONE)
    assert message in str(error.value)


def test_two_profiles_with_one_name_are_refused() -> None:
    with pytest.raises(WorkloadSyntaxError) as error:
        set_operations(
            [(load_profile(LWT), "a.yaml"), (load_profile(LWT), "b.yaml")], {}, Consistency.ONE
        )
    assert "profiles a.yaml and b.yaml are both named 'stresscql.blogposts'" in str(error.value)


def test_paths_are_split_on_commas() -> None:
    assert profile_paths("a.yaml, b.yaml") == ["a.yaml", "b.yaml"]
    with pytest.raises(WorkloadSyntaxError, match="has an empty path"):
        profile_paths("a.yaml,")


def test_a_command_with_two_profiles_builds_one_spec() -> None:
    command = parse_stress(
        [
            "user",
            f"profile={LWT},{COUNTER}",
            "ops(stresscql.blogposts.updatewithlwt=1,stresscql.counttest.insert=2)",
            "n=10",
        ]
    )
    spec = command.to_spec(Connection(contact_points=["127.0.0.1"]))
    assert [o.name for o in spec.operations] == [
        "stresscql.blogposts.updatewithlwt",
        "stresscql.counttest.insert",
    ]
    assert sum(s.startswith("CREATE TABLE") for s in spec.schema_cql) == 2
