"""casslab.load.ycsb.parse: the six shipped workload files, property parsing, command lines,
bad input."""

from __future__ import annotations

from pathlib import Path

import pytest

from casslab.errors import WorkloadSyntaxError
from casslab.load.ycsb.parse import (
    BUILTIN_WORKLOADS,
    YcsbPhase,
    builtin_workload_text,
    core_workload,
    parse_properties,
    parse_ycsb,
)

# YCSB's standard values for its core workloads (read, update, insert, scan, rmw, dist).
STANDARD = {
    "workloada": (0.5, 0.5, 0.0, 0.0, 0.0, "zipfian"),
    "workloadb": (0.95, 0.05, 0.0, 0.0, 0.0, "zipfian"),
    "workloadc": (1.0, 0.0, 0.0, 0.0, 0.0, "zipfian"),
    "workloadd": (0.95, 0.0, 0.05, 0.0, 0.0, "latest"),
    "workloade": (0.0, 0.0, 0.05, 0.95, 0.0, "zipfian"),
    "workloadf": (0.5, 0.0, 0.0, 0.0, 0.5, "zipfian"),
}


@pytest.mark.parametrize("name", BUILTIN_WORKLOADS)
def test_shipped_workload_files(name: str) -> None:
    properties = parse_properties(builtin_workload_text(name), source=name)
    workload = core_workload(properties)
    assert (workload.recordcount, workload.operationcount) == (1000, 1000)
    assert properties["workload"] == "site.ycsb.workloads.CoreWorkload"
    read, update, insert, scan, rmw, dist = STANDARD[name]
    assert (
        workload.readproportion,
        workload.updateproportion,
        workload.insertproportion,
        workload.scanproportion,
        workload.readmodifywriteproportion,
        workload.requestdistribution,
    ) == (read, update, insert, scan, rmw, dist)
    assert workload.readallfields is True
    if name == "workloade":
        assert (workload.maxscanlength, workload.scanlengthdistribution) == (100, "uniform")


def test_cli_properties_override_files_in_any_order(tmp_path: Path) -> None:
    mine = tmp_path / "mine.properties"
    mine.write_text("recordcount=77\n# a comment\n! another\nfieldlength : 10\nreadproportion 1\n")
    command = parse_ycsb(["run", "-p", "recordcount=5", "-P", "workloadb", "-P", str(mine)])
    assert command.phase is YcsbPhase.RUN
    workload = command.workload()
    assert (workload.recordcount, workload.fieldlength, workload.readproportion) == (5, 10, 1.0)
    assert command.property_files == ["workloadb", str(mine)]
    assert parse_ycsb(["run", "-P", "workloads/workloadc"]).workload().readproportion == 1.0
    assert (
        parse_ycsb(["run", "-P", "x"], read_file=lambda _: "recordcount=3").workload().recordcount
        == 3
    )


def test_properties_text() -> None:
    text = "a=1\n  b = two words \nc: 3\nd 4\nlong=x\\\n   y\n#e=5\n\nflag\n"
    assert parse_properties(text) == {
        "a": "1",
        "b": "two words",
        "c": "3",
        "d": "4",
        "long": "xy",
        "flag": "",
    }


def test_hosts_property_gives_contact_points() -> None:
    command = parse_ycsb(
        ["run", "-P", "workloada", "-p", "hosts=10.0.0.1,10.0.0.2", "-p", "port=9043"]
    )
    assert command.contact_points(["127.0.0.1:9042"]) == ["10.0.0.1:9043", "10.0.0.2:9043"]
    assert parse_ycsb(["run"]).contact_points(["h:1"]) == ["h:1"]


BAD: list[tuple[list[str], str]] = [
    ([], "expected load or run, got 'nothing'"),
    (["transact"], "expected load or run, got 'transact'"),
    (["run", "mongodb"], "binding 'mongodb' is not supported"),
    (["run", "-x"], "unknown argument '-x'"),
    (["run", "-P"], "-P needs a value"),
    (["run", "-P", "workloadz"], "no such file; give a property file path or one of workloada"),
    (["run", "-p", "recordcount"], "write key=value"),
    (["run", "-threads", "many"], "-threads 'many': give a whole number >= 1"),
    (["run", "-target", "-5"], "-target '-5': give operations per second > 0"),
    (["run", "-p", "requestdistribution=normal"], "-p requestdistribution=normal"),
    (["run", "-p", "recordcount=-1"], "-p recordcount=-1"),
    (["run", "-p", "cassandra.readconsistencylevel=MOST"], "not a consistency level"),
    (["run", "-db", "site.ycsb.BasicDB"], "only the Cassandra CQL binding"),
]


@pytest.mark.parametrize(("args", "message"), BAD)
def test_bad_command_lines(args: list[str], message: str) -> None:
    with pytest.raises(WorkloadSyntaxError) as raised:
        parse_ycsb(args)
    assert message in str(raised.value)
