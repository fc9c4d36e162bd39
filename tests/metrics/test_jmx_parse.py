"""The JMX helper: parsing and summing its answers (literal lines), and the helper JVM
itself against a port where no node listens."""

from __future__ import annotations

import shutil
import socket
import time

import pytest

from casslab.metrics.catalogue import family, metric, names
from casslab.metrics.jmx import JmxClient, JmxSource
from casslab.metrics.jmx_mbeans import JmxValue, parse_answer, summarize
from casslab.metrics.source import SourceUnavailableError

M = "org.apache.cassandra.metrics"
ANSWER = [
    f"V\t{M}:type=ClientRequest,scope=Read,name=Latency\tCount\t10",
    f"V\t{M}:type=ClientRequest,scope=Read,name=TotalLatency\tCount\t5000",
    f"V\t{M}:type=ClientRequest,scope=Write,name=Latency\tCount\t7",
    f"V\t{M}:type=ClientRequest,scope=Write,name=TotalLatency\tCount\t700",
    f"V\t{M}:type=Compaction,name=PendingTasks\tValue\t3",
    f"V\t{M}:type=Compaction,name=TotalCompactionsCompleted\tCount\t12",
    f"V\t{M}:type=Compaction,name=BytesCompacted\tCount\t123456",
    f"V\t{M}:type=Table,keyspace=ks,scope=t1,name=LiveSSTableCount\tValue\t4",
    f"V\t{M}:type=Table,keyspace=ks,scope=t2,name=LiveSSTableCount\tValue\t2",
    f"V\t{M}:type=Table,keyspace=ks,scope=t1,name=LiveDiskSpaceUsed\tCount\t1000",
    f"V\t{M}:type=Table,keyspace=ks,scope=t2,name=LiveDiskSpaceUsed\tCount\t500",
    f"V\t{M}:type=DroppedMessage,scope=MUTATION,name=Dropped\tCount\t5",
    f"V\t{M}:type=DroppedMessage,scope=READ,name=Dropped\tCount\t1",
    "V\tjava.lang:type=GarbageCollector,name=G1 Young Generation\tCollectionCount\t20",
    "V\tjava.lang:type=GarbageCollector,name=G1 Young Generation\tCollectionTime\t300",
    "V\tjava.lang:type=GarbageCollector,name=G1 Old Generation\tCollectionCount\t1",
    "V\tjava.lang:type=GarbageCollector,name=G1 Old Generation\tCollectionTime\t50",
    "V\tjava.lang:type=GarbageCollector,name=G1 Old Generation\tLastGcInfo\tjavax.Composite@1",
]


def test_parse_answer_keeps_numeric_values() -> None:
    values = parse_answer(ANSWER)
    assert len(values) == len(ANSWER) - 1  # the composite value is skipped
    assert values[0] == JmxValue(f"{M}:type=ClientRequest,scope=Read,name=Latency", "Count", 10.0)


def test_parse_answer_error_line_is_a_gap() -> None:
    with pytest.raises(SourceUnavailableError, match="Connection refused"):
        parse_answer(["E\tjava.rmi.ConnectException: Connection refused to host"])


def test_summarize_sums_per_metric() -> None:
    s = summarize(parse_answer(ANSWER))
    assert s["cassandra.compactions_pending"] == 3
    assert s["cassandra.compaction_count_total"] == 12
    assert s["cassandra.bytes_compacted"] == 123456
    assert s["cassandra.sstables"] == 6
    assert s["cassandra.live_disk_bytes"] == 1500
    assert s["cassandra.dropped_messages"] == 6
    assert s["cassandra.gc_pauses"] == 21
    assert s["cassandra.gc_pause_ms"] == 350
    assert s["_read_count"] == 10
    assert s["_read_total_us"] == 5000
    assert s["_write_count"] == 7


@pytest.mark.parametrize("collector", ["G1 Concurrent GC", "ZGC Cycles", "Shenandoah Cycles"])
def test_summarize_leaves_out_collectors_of_concurrent_cycles(collector: str) -> None:
    bean = f"java.lang:type=GarbageCollector,name={collector}"
    concurrent = [f"V\t{bean}\tCollectionCount\t9", f"V\t{bean}\tCollectionTime\t90000"]
    s = summarize(parse_answer(ANSWER + concurrent))
    assert s["cassandra.gc_pauses"] == 21  # G1 Young + Old only: pauses
    assert s["cassandra.gc_pause_ms"] == 350


def test_summarize_takes_dropped_messages_from_messaging_service() -> None:
    line = "V\torg.apache.cassandra.net:type=MessagingService\tDroppedMessages\t17"
    assert summarize(parse_answer([line])) == {"cassandra.dropped_messages": 17.0}


def test_summarize_keeps_each_dropping_verb_apart_as_well() -> None:
    bean = "org.apache.cassandra.net:type=MessagingService"
    lines = [
        f"V\t{bean}\tDroppedMessages\t17",
        f"V\t{bean}\tDroppedMessages/MUTATION_REQ\t15",
        f"V\t{bean}\tDroppedMessages/READ_REQ\t2",
    ]
    assert summarize(parse_answer(lines)) == {
        "cassandra.dropped_messages": 17.0,
        "cassandra.dropped_messages_by_verb/MUTATION_REQ": 15.0,
        "cassandra.dropped_messages_by_verb/READ_REQ": 2.0,
    }


def test_summarize_takes_cassandras_latency_percentiles_in_ms() -> None:
    read, write = f"{M}:type=ClientRequest,scope=Read", f"{M}:type=ClientRequest,scope=Write"
    lines = [
        f"V\t{read},name=Latency\tCount\t10",
        f"V\t{read},name=Latency\t50thPercentile\t454.826",
        f"V\t{read},name=Latency\t99thPercentile\t2816.159",
        f"V\t{read},name=Latency\t999thPercentile\t14530.764",
        f"V\t{write},name=Latency\t99thPercentile\t943.127",
    ]
    s = summarize(parse_answer(lines))
    assert s == {
        "_read_count": 10.0,
        "cassandra.read_latency_p50_ms": pytest.approx(0.454826),
        "cassandra.read_latency_p99_ms": pytest.approx(2.816159),
        "cassandra.read_latency_p999_ms": pytest.approx(14.530764),
        "cassandra.write_latency_p99_ms": pytest.approx(0.943127),
    }
    assert {k for k in s if not k.startswith("_")} <= names()


def test_summarize_emits_only_catalogue_names() -> None:
    public = {family(k) for k in summarize(parse_answer(ANSWER)) if not k.startswith("_")}
    assert public <= names()


def test_summarize_keeps_each_table_apart_as_well() -> None:
    s = summarize(parse_answer(ANSWER))
    assert s["cassandra.table_sstables/ks.t1"] == 4
    assert s["cassandra.table_sstables/ks.t2"] == 2
    assert s["cassandra.table_live_disk_bytes/ks.t1"] == 1000
    assert s["cassandra.table_live_disk_bytes/ks.t2"] == 500
    assert metric("cassandra.table_sstables/ks.t1").name == "cassandra.table_sstables"


def test_summarize_takes_each_tables_latency_and_sstables_per_read() -> None:
    t1, t2 = f"{M}:type=Table,keyspace=ks,scope=t1", f"{M}:type=Table,keyspace=ks,scope=t2"
    lines = [
        f"V\t{t1},name=ReadLatency\tCount\t1200",
        f"V\t{t1},name=ReadLatency\t50thPercentile\t88.148",
        f"V\t{t1},name=ReadLatency\t99thPercentile\t454.826",
        f"V\t{t1},name=WriteLatency\tCount\t9000",
        f"V\t{t1},name=WriteLatency\t99thPercentile\t42.51",
        f"V\t{t1},name=SSTablesPerReadHistogram\tMean\t1.75",
        f"V\t{t1},name=SSTablesPerReadHistogram\t99thPercentile\t4.0",
        f"V\t{t2},name=ReadLatency\tCount\t3",
    ]
    s = summarize(parse_answer(lines))
    assert s == {
        "cassandra.table_reads/ks.t1": 1200.0,
        "cassandra.table_read_latency_p50_ms/ks.t1": pytest.approx(0.088148),
        "cassandra.table_read_latency_p99_ms/ks.t1": pytest.approx(0.454826),
        "cassandra.table_writes/ks.t1": 9000.0,
        "cassandra.table_write_latency_p99_ms/ks.t1": pytest.approx(0.04251),
        "cassandra.table_sstables_per_read_mean/ks.t1": 1.75,
        "cassandra.table_sstables_per_read_p99/ks.t1": 4.0,
        "cassandra.table_reads/ks.t2": 3.0,
    }
    assert {family(k) for k in s} <= names()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.skipif(shutil.which("javac") is None, reason="needs a JDK to build the helper")
def test_helper_reports_an_unreachable_node_as_a_gap_and_recovers() -> None:
    client = JmxClient(timeout_s=30).acquire()
    try:
        port = _free_port()
        for _ in range(2):  # the helper survives the failure and answers again
            with pytest.raises(SourceUnavailableError, match=r"JMX: .*(refused|Connect)"):
                client.poll("127.0.0.1", port)
        assert client.pid is not None
    finally:
        client.close()
    assert client.pid is None


@pytest.mark.skipif(shutil.which("javac") is None, reason="needs a JDK to build the helper")
def test_jmx_source_backs_off_after_a_failure() -> None:
    client = JmxClient(timeout_s=30)
    src = JmxSource("n1", "127.0.0.1", _free_port(), client, retry_every_s=60)
    try:
        with pytest.raises(SourceUnavailableError, match="JMX: "):
            src.sample(1.0)
        t0 = time.monotonic()
        with pytest.raises(SourceUnavailableError, match="retrying every 60 s"):
            src.sample(2.0)
        assert time.monotonic() - t0 < 0.1  # no new connection attempt
    finally:
        src.close()


@pytest.mark.skipif(shutil.which("javac") is None, reason="needs a JDK to build the helper")
def test_warming_an_unreachable_node_stops_at_the_first_failure() -> None:
    client = JmxClient(timeout_s=30)
    src = JmxSource("n1", "127.0.0.1", _free_port(), client)
    try:
        src.warm(polls=50)  # no error: the first sample records the gap
        with pytest.raises(SourceUnavailableError, match="JMX: "):
            src.sample(1.0)
    finally:
        src.close()
