"""The catalog of named workloads: every shipped profile parses and builds an engine spec
for the commands its comment gives, ``@NAME`` resolves where profiles are read, an unknown
name names the known ones, and ``casslab workloads`` lists and shows them."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from casslab.engine_contract.workload_spec import Connection, OpKind
from casslab.errors import WorkloadSyntaxError
from casslab.load.stress.front_end import STRESS
from casslab.load.stress.parse import parse_stress
from casslab.load.stress.profile import load_profile
from casslab.workloads.named import (
    CATALOG_DIR,
    UnknownWorkloadError,
    catalog,
    describe,
    profile_location,
    workload_names,
)
from cli_entry import casslab

CONNECTION = Connection(contact_points=["127.0.20.1:9042"])
# What issue 33 asks the catalog to hold (vector is another part's); each with an index or
# statement kind that shows it is what its name says.
REQUIRED = ("keyvalue", "timeseries", "widepartition", "counters", "lwt", "sai", "rmw")


def test_the_catalog_holds_the_workloads_issue_33_names() -> None:
    assert set(REQUIRED) | {"secondaryindex"} <= set(workload_names())


@pytest.mark.parametrize("name", [n for n in workload_names() if n != "vector"])
def test_each_workload_parses_and_its_commands_build_a_spec(name: str) -> None:
    entry = next(e for e in catalog() if e.name == name)
    assert entry.summary not in ("", "(no description)")
    load_profile(entry.path)
    for command in (entry.load_command, entry.run_command):
        words = shlex.split(command)
        assert words[:3] == ["casslab", "stress", "user"]
        assert f"profile=@{name}" in words
        spec = parse_stress(words[2:]).to_spec(CONNECTION)
        assert spec.operations, command
        assert spec.stop.duration_s or spec.stop.ops


def test_the_workloads_are_what_their_names_say() -> None:
    def spec(name: str) -> str:
        entry = next(e for e in catalog() if e.name == name)
        built = parse_stress(shlex.split(entry.run_command)[2:]).to_spec(CONNECTION)
        return built.model_dump_json()

    assert "TimeWindowCompactionStrategy" in spec("timeseries")
    assert "default_time_to_live" in spec("timeseries")
    assert "USING 'sai'" in spec("sai")
    assert "category = ? AND price < ?" in spec("sai")
    assert "USING 'legacy_local_table'" in spec("secondaryindex")
    assert "IF NOT EXISTS" in spec("lwt")
    assert "IF version = ?" in spec("rmw")
    counters = parse_stress(["user", "profile=@counters", "ops(insert=1)", "n=1"])
    [op] = counters.to_spec(CONNECTION).operations
    assert op.kind is OpKind.COUNTER_WRITE


def test_at_name_resolves_to_the_catalog_and_paths_to_the_base_dir(tmp_path: Path) -> None:
    assert profile_location("@sai", tmp_path) == CATALOG_DIR / "sai.yaml"
    assert profile_location("p.yaml", tmp_path) == tmp_path / "p.yaml"
    assert profile_location("/x/p.yaml", tmp_path) == Path("/x/p.yaml")
    assert profile_location("p.yaml", None) == Path("p.yaml")


def test_an_unknown_name_is_refused_naming_the_known_ones() -> None:
    with pytest.raises(UnknownWorkloadError) as caught:
        parse_stress(["user", "profile=@timeserie", "ops(insert=1)", "n=1"]).to_spec(CONNECTION)
    assert "profile=@timeserie: no such named workload" in str(caught.value)
    assert "@timeseries" in str(caught.value)
    assert "`casslab workloads` lists them" in str(caught.value)
    assert isinstance(caught.value, WorkloadSyntaxError)


def test_an_experiment_file_check_names_an_unknown_workload(tmp_path: Path) -> None:
    load = STRESS.parse(["user", "profile=@nope", "ops(insert=1)", "n=1"], base_dir=tmp_path)
    assert "no such named workload" in (load.file_problem() or "")
    good = STRESS.parse(["user", "profile=@sai,@lwt", "ops(sai.insert=1)"], base_dir=tmp_path)
    assert good.file_problem() is None


@pytest.mark.parametrize(
    ("text", "summary", "load", "run"),
    [
        (
            "# Shops.\n#\n# load: casslab stress user profile=@x 'ops(insert=1)' n=5\n"
            "# run: casslab stress user profile=@x 'ops(q=1)' duration=9s\nkeyspace: k\n",
            "Shops.",
            "casslab stress user profile=@x 'ops(insert=1)' n=5",
            "casslab stress user profile=@x 'ops(q=1)' duration=9s",
        ),
        (
            "keyspace: k\n# load: not a header line\n",
            "(no description)",
            "casslab stress user profile=@x 'ops(insert=1)' n=100000",
            "casslab stress user profile=@x 'ops(insert=1)' duration=60s",
        ),
    ],
)
def test_describe_reads_the_leading_comment(text: str, summary: str, load: str, run: str) -> None:
    entry = describe("x", text, Path("x.yaml"))
    assert (entry.summary, entry.load_command, entry.run_command) == (summary, load, run)


def test_the_cli_lists_and_shows_the_catalog() -> None:
    listed = casslab(None, "workloads")
    assert listed.returncode == 0, listed.stderr
    lines = listed.stdout.splitlines()
    assert any(line.startswith("@timeseries ") and "TWCS" in line for line in lines)
    assert len([line for line in lines if line.startswith("@")]) == len(workload_names())
    shown = casslab(None, "workloads", "show", "timeseries")
    assert shown.returncode == 0, shown.stderr
    assert "table_definition:" in shown.stdout
    assert "# load: casslab stress user profile=@timeseries 'ops(insert=1)'" in shown.stdout
    unknown = casslab(None, "workloads", "show", "nope")
    assert unknown.returncode == 1
    assert "no such named workload" in unknown.stderr


def test_capacity_and_tune_searches_read_a_named_workload(tmp_path: Path) -> None:
    """The capacity search and the tuner build their load through the front end's
    search_load, which reads profiles where `casslab stress user` does."""
    load = STRESS.search_load(
        ["user", "profile=@sai", "ops(by_category=1)"],
        contact_points=["127.0.20.1:9042"],
        closed_loop=True,
        seed=0,
        data_seed=0,
        base_dir=tmp_path,
    )
    [op] = load.spec.operations
    assert "category = ?" in op.statements[0].cql
    assert "CREATE INDEX IF NOT EXISTS products_category" in " ".join(load.spec.schema_cql)
