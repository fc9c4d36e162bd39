"""The java command line of a Cassandra node and of nodetool, per JDK (pure)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from casslab.cluster import collectors
from casslab.cluster.model import Node

DAEMON_CLASS = "org.apache.cassandra.service.CassandraDaemon"
NODETOOL_CLASS = "org.apache.cassandra.tools.NodeTool"

# Module access Cassandra needs on JDK 11+ (it reflects into these JDK internals for
# off-heap memory, direct I/O, JMX and instrumentation).
_EXPORTS = (
    "java.base/jdk.internal.misc",
    "java.base/jdk.internal.ref",
    "java.base/sun.nio.ch",
    "java.management.rmi/com.sun.jmx.remote.internal.rmi",
    "java.rmi/sun.rmi.registry",
    "java.rmi/sun.rmi.server",
    "java.sql/java.sql",
)
_OPENS = (
    "java.base/java.lang",
    "java.base/java.lang.module",
    "java.base/java.lang.reflect",
    "java.base/java.io",
    "java.base/java.nio",
    "java.base/java.net",
    "java.base/java.math",
    "java.base/java.util",
    "java.base/java.util.concurrent",
    "java.base/java.util.concurrent.atomic",
    "java.base/jdk.internal.loader",
    "java.base/jdk.internal.math",
    "java.base/jdk.internal.misc",
    "java.base/jdk.internal.module",
    "java.base/jdk.internal.ref",
    "java.base/jdk.internal.reflect",
    "java.base/jdk.internal.util.jar",
    "java.base/sun.nio.ch",
    "jdk.management/com.sun.management.internal",
)


def module_flags(java_feature: int) -> list[str]:
    if java_feature < 11:
        return []
    flags: list[str] = []
    for module in _EXPORTS:
        flags += ["--add-exports", f"{module}=ALL-UNNAMED"]
    for module in _OPENS:
        flags += ["--add-opens", f"{module}=ALL-UNNAMED"]
    return flags


# A node runs with the JVM options Cassandra 5.0 ships (conf/jvm-server.options, then
# conf/jvm17-server.options): numbers measured here are those of a
# stock node. They matter: without G1HeapRegionSize=16m a 1 GiB heap gets 1 MiB regions,
# every object of 512 KiB or more is a humongous allocation (gc.log showed "G1 Humongous
# Allocation" pauses at each keyspace drop and restore), and without -ea the node skips
# the assertions a stock node evaluates on every request.
STOCK_SERVER_OPTIONS = (
    "-ea",  # Cassandra runs with assertions on
    "-da:net.openhft...",
    "-XX:+UseThreadPriorities",
    "-XX:+HeapDumpOnOutOfMemoryError",
    "-Xss256k",
    "-XX:+AlwaysPreTouch",
    "-XX:+UseTLAB",
    "-XX:+ResizeTLAB",
    "-XX:+UseNUMA",
    "-XX:+PerfDisableSharedMem",
    "-Djava.net.preferIPv4Stack=true",
)
STOCK_NETTY_OPTIONS = (  # the Netty section of conf/jvm17-server.options
    "-Dio.netty.tryReflectionSetAccessible=true",
    "-Dio.netty.allocator.useCacheForAllThreads=true",
    "-Dio.netty.allocator.maxOrder=11",
)


def jmx_flags(node: Node) -> list[str]:
    """JMX on loopback (Cassandra's ``LOCAL_JMX=yes``), or, for a node in its own network
    namespace, on that namespace's addresses (its loopback and its bridge address, which
    the host reaches and nothing outside does), without authentication as locally."""
    if node.jmx_address == "127.0.0.1":
        return [f"-Dcassandra.jmx.local.port={node.jmx_port}"]
    return [
        f"-Dcassandra.jmx.remote.port={node.jmx_port}",
        f"-Dcom.sun.management.jmxremote.rmi.port={node.jmx_port}",
        "-Dcom.sun.management.jmxremote.authenticate=false",
        "-Dcom.sun.management.jmxremote.ssl=false",
        f"-Djava.rmi.server.hostname={node.jmx_address}",
    ]


def daemon_command(
    java: Path,
    java_feature: int,
    classpath: str,
    node: Node,
    heap_mib: int,
    extra: Sequence[str] = (),
    gc: str | None = None,
    options: Sequence[str] = (),
) -> list[str]:
    """``java ... CassandraDaemon`` for ``node`` with its rendered configuration and the
    collector ``gc`` (None: Cassandra's G1 settings); ``extra`` JVM flags (e.g. the
    processor count of a limited node), then the cluster's own ``options``
    (:mod:`casslab.cluster.jvm_options`), come last: the JVM takes an option's last value."""
    conf = node.conf_dir
    return [
        str(java),
        f"-Xms{heap_mib}M",
        f"-Xmx{heap_mib}M",
        *STOCK_SERVER_OPTIONS,
        *collectors.flags(gc),  # the G1 section of conf/jvm17-server.options by default
        *STOCK_NETTY_OPTIONS,
        "-XX:+CrashOnOutOfMemoryError",
        f"-XX:HeapDumpPath={node.logs_dir}",
        # as Cassandra's own options file suggests: a GC log beside system.log
        f"-Xlog:gc*=info,safepoint=info:file={node.logs_dir / 'gc.log'}"
        ":time,uptime,tags:filecount=4,filesize=10m",
        "-XX:StringTableSize=1000003",
        "-Djdk.attach.allowAttachSelf=true",
        "-Dcassandra-foreground=yes",
        f"-Dcassandra.config=file://{conf / 'cassandra.yaml'}",
        f"-Dcassandra.logdir={node.logs_dir}",
        f"-Dcassandra.storagedir={node.directory}",
        f"-Dlogback.configurationFile={conf / 'logback.xml'}",
        *jmx_flags(node),
        *(
            [f"-Dcassandra-rackdc.properties=file://{conf / 'cassandra-rackdc.properties'}"]
            if node.datacenter is not None
            else []
        ),
        "-Dcassandra.skip_wait_for_gossip_to_settle=0",
        f"-Dcasslab.node={node.number}",
        *module_flags(java_feature),
        *extra,
        *options,
        "-cp",
        classpath,
        DAEMON_CLASS,
    ]


def nodetool_command(
    java: Path,
    java_feature: int,
    classpath: str,
    node: Node,
    args: list[str],
    extra: Sequence[str] = (),
) -> list[str]:
    """``java ... NodeTool -h JMX_ADDRESS -p JMX_PORT ARGS``; ``extra`` JVM flags (class-data
    sharing) after the JVM's own."""
    return [
        str(java),
        *extra,
        "-Xmx128M",
        "-XX:+UseSerialGC",
        "-XX:TieredStopAtLevel=1",
        "-Xshare:auto",
        "-Dcassandra.storagedir=/tmp",
        "-Dlogback.configurationFile=" + str(node.conf_dir / "logback-tools.xml"),
        *module_flags(java_feature),
        "-cp",
        classpath,
        NODETOOL_CLASS,
        "-h",
        node.jmx_address,
        "-p",
        str(node.jmx_port),
        *args,
    ]
