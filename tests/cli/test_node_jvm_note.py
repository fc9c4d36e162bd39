"""`casslab status`'s line on what casslab added to the nodes' JVMs, read from the state
and the first node's recorded command line."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from casslab.cli.cluster import _node_jvm


def _state(tmp_path: Path, command: str | None, clock: bool = False) -> SimpleNamespace:
    conf = tmp_path / "node1" / "conf"
    conf.mkdir(parents=True)
    if command is not None:
        (conf / "command.txt").write_text(command + "\n")
    node = SimpleNamespace(conf_dir=conf)
    return SimpleNamespace(spec=SimpleNamespace(injectable_clock=clock), nodes=[node])


@pytest.mark.parametrize(
    ("command", "clock", "said"),
    [
        (None, False, "Cassandra's own clock (stock)"),
        ("java -Xmx512M CassandraDaemon", False, "Cassandra's own clock (stock)"),
        (
            "java -XX:SharedArchiveFile=/c/cassandra.jsa -Xshare:auto "
            "-Dcassandra.memtable.row_overhead_size=181 CassandraDaemon",
            False,
            "Cassandra's own clock (stock); class-data sharing archive for start-up; "
            "memtable row overhead 181 B, as a node of this kind computed it",
        ),
        (
            "java -Dcassandra.clock=casslab.SkewedClock CassandraDaemon",
            True,
            "casslab's injectable clock (-Dcassandra.clock=casslab.SkewedClock)",
        ),
    ],
)
def test_the_line_names_what_casslab_added(
    tmp_path: Path, command: str | None, clock: bool, said: str
) -> None:
    assert _node_jvm(_state(tmp_path, command, clock)) == said
