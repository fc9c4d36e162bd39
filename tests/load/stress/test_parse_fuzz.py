"""Fuzz pass over the cassandra-stress command-line parser (:mod:`fuzz_inputs`)."""

from __future__ import annotations

import random
from pathlib import Path

from casslab.engine_contract.workload_spec import Connection
from casslab.load.stress import StressCommand, parse_stress
from fuzz_inputs import fuzz, words

VOCABULARY = [
    "write",
    "read",
    "mixed",
    "counter_write",
    "user",
    "n=1000",
    "duration=20s",
    "cl=ONE",
    "no-warmup",
    "truncate=once",
    "keysize=10",
    "ratio(write=9,read=1)",
    "ops(insert=1)",
    "err<0.02",
    "n>30",
    "-pop",
    "seq=1..1000",
    "dist=UNIFORM(1..1M)",
    "no-wrap",
    "-rate",
    "threads=8",
    "throttle=100/s",
    "fixed=50/s",
    "threads>=4",
    "threads<=64",
    "auto",
    "-col",
    "n=FIXED(5)",
    "size=FIXED(34)",
    "names=a,b",
    "-schema",
    "keyspace=ks1",
    "replication(strategy=SimpleStrategy,factor=1)",
    "compaction(strategy=LCS)",
    "compression=LZ4Compressor",
    "-node",
    "127.0.0.1",
    "datacenter=dc1",
    "-port",
    "native=9042",
    "-mode",
    "native",
    "cql3",
    "user=u",
    "password=p w(d",
    "password-env=PW",
    "-log",
    "interval=1s",
    "-errors",
    "ignore",
    "retries=3",
    "-insert",
    "partitions=fixed(1)",
    "-transport",
    "truststore=t.jks",
    "truststore-password=x y",
    "ssl-protocol=TLS",
]


def _command(rng: random.Random) -> list[str]:
    return [rng.choice(VOCABULARY[:5]), *words(rng, VOCABULARY, rng.randint(0, 12))]


def _parse(given: object) -> object:
    assert isinstance(given, list)
    command: StressCommand = parse_stress(given)
    if command.profile is None:  # a user command would read its profile file
        command.to_spec(Connection(contact_points=["127.0.0.1:9042"]), profile_dir=Path("/"))
    return command


def test_stress_parser_fuzz_finds_no_traceback_or_hang() -> None:
    assert fuzz(38, 3.0, _command, _parse) > 100
