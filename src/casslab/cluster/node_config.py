"""Render a node's configuration files from records (pure: text out, no files)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import yaml

from casslab.cluster.model import Node

RESERVED = frozenset(
    {
        "listen_address",
        "rpc_address",
        "broadcast_address",
        "broadcast_rpc_address",
        "native_transport_port",
        "storage_port",
        "data_file_directories",
        "commitlog_directory",
        "hints_directory",
        "saved_caches_directory",
        "cdc_raw_directory",
        "seed_provider",
        "initial_token",
        "cluster_name",
    }
)


def node_settings(
    cluster_name: str,
    node: Node,
    seeds: Sequence[Node],
    tokens: Sequence[int],
    user: Mapping[str, Any],
) -> dict[str, Any]:
    """The full cassandra.yaml of ``node``: casslab's lab defaults, then user settings.

    Addresses, ports and directories are casslab's (``RESERVED``); everything else the
    user may override by its 5.0 name.
    """
    settings: dict[str, Any] = {
        "cluster_name": cluster_name,
        "num_tokens": len(tokens),
        "allocate_tokens_for_local_replication_factor": 3,
        "partitioner": "org.apache.cassandra.dht.Murmur3Partitioner",
        "endpoint_snitch": "SimpleSnitch",
        "commitlog_sync": "periodic",
        "commitlog_sync_period": "10000ms",
        "commitlog_segment_size": "32MiB",
        "auto_bootstrap": False,
        "start_native_transport": True,
        "authenticator": "AllowAllAuthenticator",
        "authorizer": "AllowAllAuthorizer",
        "role_manager": "CassandraRoleManager",
        "network_authorizer": "AllowAllNetworkAuthorizer",
        "disk_failure_policy": "stop",
        "commit_failure_policy": "stop",
        "concurrent_reads": 32,
        "concurrent_writes": 32,
        "concurrent_counter_writes": 32,
        "memtable_allocation_type": "heap_buffers",
        "compaction_throughput": "64MiB/s",
        "read_request_timeout": "5000ms",
        "range_request_timeout": "10000ms",
        "write_request_timeout": "2000ms",
        "request_timeout": "10000ms",
        "dynamic_snitch": True,
        "incremental_backups": False,
        "snapshot_before_compaction": False,
        "auto_snapshot": True,
        "materialized_views_enabled": False,
        "sasi_indexes_enabled": False,
        "user_defined_functions_enabled": False,
    }
    settings.update(user)
    settings.update(
        {
            "listen_address": node.address,
            "rpc_address": node.address,
            "native_transport_port": node.native_port,
            "storage_port": node.storage_port,
            "data_file_directories": [str(node.data_dir)],
            "commitlog_directory": str(node.commitlog_dir),
            "hints_directory": str(node.hints_dir),
            "saved_caches_directory": str(node.saved_caches_dir),
            "cdc_raw_directory": str(node.cdc_dir),
            **(
                {"endpoint_snitch": "GossipingPropertyFileSnitch"}
                if node.datacenter is not None
                else {}
            ),
            "initial_token": ",".join(str(t) for t in tokens),
            "num_tokens": len(tokens),
            "seed_provider": [
                {
                    "class_name": "org.apache.cassandra.locator.SimpleSeedProvider",
                    "parameters": [
                        {"seeds": ",".join(f"{s.address}:{s.storage_port}" for s in seeds)}
                    ],
                }
            ],
        }
    )
    return settings


def cassandra_yaml(settings: Mapping[str, Any]) -> str:
    header = "# Rendered by casslab; edit with `casslab restart --set key=value`, not by hand.\n"
    return header + yaml.safe_dump(dict(settings), sort_keys=True, default_flow_style=False)


def logback_xml(pattern: str = "%-5level [%thread] %date{ISO8601} %F:%L - %msg%n") -> str:
    """system.log (INFO, rolled by size) and debug.log (DEBUG), as Cassandra ships."""
    return f"""<configuration scan="false">
  <appender name="SYSTEMLOG" class="ch.qos.logback.core.rolling.RollingFileAppender">
    <filter class="ch.qos.logback.classic.filter.ThresholdFilter"><level>INFO</level></filter>
    <file>${{cassandra.logdir}}/system.log</file>
    <rollingPolicy class="ch.qos.logback.core.rolling.SizeAndTimeBasedRollingPolicy">
      <fileNamePattern>${{cassandra.logdir}}/system.log.%d{{yyyy-MM-dd}}.%i.zip</fileNamePattern>
      <maxFileSize>50MB</maxFileSize><maxHistory>7</maxHistory><totalSizeCap>1GB</totalSizeCap>
    </rollingPolicy>
    <encoder><pattern>{pattern}</pattern></encoder>
  </appender>
  <appender name="DEBUGLOG" class="ch.qos.logback.core.rolling.RollingFileAppender">
    <file>${{cassandra.logdir}}/debug.log</file>
    <rollingPolicy class="ch.qos.logback.core.rolling.SizeAndTimeBasedRollingPolicy">
      <fileNamePattern>${{cassandra.logdir}}/debug.log.%d{{yyyy-MM-dd}}.%i.zip</fileNamePattern>
      <maxFileSize>50MB</maxFileSize><maxHistory>7</maxHistory><totalSizeCap>1GB</totalSizeCap>
    </rollingPolicy>
    <encoder><pattern>{pattern}</pattern></encoder>
  </appender>
  <appender name="ASYNCDEBUGLOG" class="ch.qos.logback.classic.AsyncAppender">
    <queueSize>1024</queueSize><discardingThreshold>0</discardingThreshold>
    <includeCallerData>true</includeCallerData><appender-ref ref="DEBUGLOG"/>
  </appender>
  <root level="INFO">
    <appender-ref ref="SYSTEMLOG"/>
    <appender-ref ref="ASYNCDEBUGLOG"/>
  </root>
  <logger name="org.apache.cassandra" level="DEBUG"/>
</configuration>
"""


def tools_logback_xml() -> str:
    """nodetool logs warnings to stderr only. (A comma inside ``%date{…}`` separates
    logback's options, pattern then time zone, so the pattern uses a period.)"""
    return """<configuration>
  <appender name="STDERR" class="ch.qos.logback.core.ConsoleAppender">
    <target>System.err</target>
    <encoder><pattern>%-5level %date{HH:mm:ss.SSS} %msg%n</pattern></encoder>
  </appender>
  <root level="WARN"><appender-ref ref="STDERR"/></root>
</configuration>
"""
