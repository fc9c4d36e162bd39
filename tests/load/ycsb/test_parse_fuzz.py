"""Fuzz pass over the YCSB command-line parser (:mod:`fuzz_inputs`)."""

from __future__ import annotations

import random

from casslab.engine_contract.workload_spec import Connection
from casslab.load.ycsb.parse import parse_ycsb
from fuzz_inputs import fuzz, mutate, words

VOCABULARY = [
    "-p",
    "-P",
    "-threads",
    "-target",
    "-s",
    "-db",
    "recordcount=100",
    "operationcount=100",
    "fieldlength=100",
    "fieldcount=10",
    "table=usertable",
    "cassandra.keyspace=ycsb",
    "cassandra.username=u",
    "cassandra.password=p w",
    "cassandra.password-env=PW",
    "requestdistribution=zipfian",
    "readproportion=0.5",
    "updateproportion=0.5",
    "hosts=127.0.0.1",
    "port=9042",
    "insertorder=ordered",
    "8",
    "workloada",
    "workloadb",
    "cassandra.readconsistencylevel=ONE",
    "maxexecutiontime=10",
]
PROPERTIES = "recordcount=10\nfieldlength=100\ntable=usertable\nport=9042\n"


def _command(rng: random.Random) -> list[str]:
    return [rng.choice(["load", "run"]), *words(rng, VOCABULARY, rng.randint(0, 12))]


def _parse(given: object) -> object:
    assert isinstance(given, list)
    rng = random.Random(len(given))
    command = parse_ycsb(given, read_file=lambda name: mutate(rng, PROPERTIES))
    command.to_spec(Connection(contact_points=["127.0.0.1:9042"]))
    return command


def test_ycsb_parser_fuzz_finds_no_traceback_or_hang() -> None:
    assert fuzz(38, 3.0, _command, _parse) > 100
