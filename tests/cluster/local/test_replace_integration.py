"""A dead node replaced on real nodes: node 2 of a 2-node cluster (512M heaps) holding
200 rows at RF 2 is killed and replaced (``kind: replace``): node 3 starts on the next
address with Cassandra's replace address, takes node 2's tokens, receives its data by
streaming, and the ring is nodes 1 and 3, both UN, with every row readable at ALL from
the new node."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from cassandra import ConsistencyLevel
from cassandra.query import SimpleStatement

from casslab.cluster import ClusterSpec
from casslab.cluster.local import LocalCluster
from casslab.faults.actions import check
from casslab.faults.kinds.replace.replace_operation import REPLACE
from casslab.faults.model import Fault
from casslab.faults.operation import OperationDone

pytestmark = pytest.mark.integration

ROWS = 200
SPEC = ClusterSpec(
    name="replace2", nodes=2, heap="512M", base_address="127.0.251.1", jmx_port_base=9950
)


def _tokens(cluster: LocalCluster, number: int) -> set[int]:
    rows = cluster.session(node=number).execute("SELECT tokens FROM system.local")
    return {int(t) for row in rows for t in row.tokens}


def test_a_replaced_node_comes_back_with_the_dead_nodes_tokens(tmp_path: Path) -> None:
    with LocalCluster.create(SPEC, tmp_path / "clusters", remove_on_exit=True) as cluster:
        session = cluster.session()
        session.execute(
            "CREATE KEYSPACE ks WITH replication = "
            "{'class': 'SimpleStrategy', 'replication_factor': 2}"
        )
        session.execute("CREATE TABLE ks.t (k int PRIMARY KEY, v text)")
        insert = SimpleStatement(
            "INSERT INTO ks.t (k, v) VALUES (%s, %s)", consistency_level=ConsistencyLevel.ALL
        )
        for k in range(ROWS):
            session.execute(insert, (k, f"value {k}"))
        cluster.nodetool(2, "flush")  # on disk: the replacement streams SSTables
        dead_tokens = _tokens(cluster, 2)
        fault = Fault.model_validate({"at": 0, "kind": "replace", "target": 2})
        check(cluster, fault)
        began = time.monotonic()
        done = REPLACE.begin(cluster, fault)
        took_s = time.monotonic() - began
        assert isinstance(done, OperationDone)
        assert [(s.node, s.step) for s in done.steps] == [(2, "kill"), (2, "replace")]
        print(f"replace took {took_s:.1f} s; steps {done.model_dump_json()}")
        assert [n.number for n in cluster.nodes] == [1, 3]
        assert cluster.node(3).address == "127.0.251.3"
        assert _tokens(cluster, 3) == dead_tokens
        received = done.steps[-1].bytes_streamed
        assert received is not None
        assert received > 0
        status = cluster.nodetool(1, "status")
        assert "127.0.251.2" not in status
        assert "UN  127.0.251.3" in status
        read = SimpleStatement("SELECT k, v FROM ks.t", consistency_level=ConsistencyLevel.ALL)
        rows = list(cluster.session(node=3).execute(read))
        assert sorted(r.k for r in rows) == list(range(ROWS))
