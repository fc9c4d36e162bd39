"""Cluster commands: ``up``, ``status``, ``down``, ``restart``, ``reset``, ``nodetool``,
``cqlsh`` and ``logs``. Parse, call :mod:`casslab.cluster` through its protocol, render.
(``attach``, for a cluster casslab did not start, is :mod:`casslab.cli.attach`.)"""

from __future__ import annotations

import os
import re
import shutil
import sys
import time
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from casslab.cli.up_options import spec_message
from casslab.errors import CasslabError, ClusterError, ConfigError, UsageError

# The cluster package is imported by each command when it runs (``casslab stress`` and the
# other groups need none of it at start-up).

console = Console()
NameOption = Annotated[
    str | None, typer.Option("--name", help="Cluster name (default: the current cluster).")
]


StartTimeout = Annotated[float, typer.Option("--timeout", min=1, help="Start-up limit, seconds.")]


def _settings(assignments: list[str]) -> dict[str, Any]:
    from casslab.cluster.settings import parse_assignment

    settings: dict[str, Any] = {}
    for text in assignments:
        key, value = parse_assignment(text)
        settings[key] = value
    return settings


def up(
    nodes: Annotated[
        int | None, typer.Option("--nodes", "-n", help="Number of nodes (new cluster: 1).")
    ] = None,
    name: Annotated[str, typer.Option("--name", help="Cluster name.")] = "casslab",
    cassandra_version: Annotated[
        str | None,
        typer.Option("--version", help="Cassandra version (default: newest 5.0.x)."),
    ] = None,
    heap: Annotated[
        str | None, typer.Option("--heap", help="JVM heap per node, e.g. 512M or 1G.")
    ] = None,
    sets: Annotated[
        list[str] | None,
        typer.Option("--set", help="cassandra.yaml setting by its 5.0 name: key=value."),
    ] = None,
    base_address: Annotated[
        str | None,
        typer.Option("--base-address", help="Address of node 1 (127.0.0.1); node n gets +n-1."),
    ] = None,
    jmx_port_base: Annotated[
        int | None, typer.Option("--jmx-port-base", help="Node n's JMX port is this + n (7190).")
    ] = None,
    fresh: Annotated[
        bool,
        typer.Option("--fresh", help="Delete a stopped cluster of this name and its data first."),
    ] = False,
    timeout: Annotated[
        float, typer.Option("--timeout", min=1, help="Start-up limit, seconds.")
    ] = 240,
    isolation: Annotated[
        str | None,
        typer.Option(
            "--isolation",
            help="process (127.0.0.n) or netns: each node in its own network namespace with "
            "its own address on a bridge, like a container.",
        ),
    ] = None,
    node_size: Annotated[
        str | None,
        typer.Option("--node-size", help="VM-size limits per node: t2.micro, t2.small, …"),
    ] = None,
    cpus: Annotated[
        float | None, typer.Option("--cpus", help="CPU quota per node, cores (e.g. 0.5).")
    ] = None,
    memory: Annotated[
        str | None, typer.Option("--memory", help="Memory limit per node, e.g. 2GiB.")
    ] = None,
    cpu_scale: Annotated[
        float | None,
        typer.Option("--cpu-scale", help="Multiply every CPU limit (host too small: 0.5)."),
    ] = None,
    cpuset: Annotated[
        str | None, typer.Option("--cpuset", help="Host CPUs the nodes may use, e.g. 1.")
    ] = None,
    io_read: Annotated[
        str | None, typer.Option("--io-read", help="Block-I/O read limit per node, e.g. 50MiB.")
    ] = None,
    io_write: Annotated[
        str | None,
        typer.Option("--io-write", help="Block-I/O write limit per node (per second), 20MiB."),
    ] = None,
    subnet: Annotated[
        str | None, typer.Option("--subnet", help="netns nodes' subnet (default: a free /24).")
    ] = None,
    topology: Annotated[
        str | None,
        typer.Option(
            "--topology",
            help="Datacenters and their nodes, e.g. dc1:2,dc2:2,dc3:1 (netns nodes, "
            "GossipingPropertyFileSnitch).",
        ),
    ] = None,
    racks: Annotated[
        int, typer.Option("--racks", help="Racks per datacenter (nodes go round them).")
    ] = 1,
    clock: Annotated[
        list[str] | None,
        typer.Option(
            "--clock",
            help="A node's clock offset, e.g. 2=-500ms (repeat per node); starts the nodes "
            "with casslab's injectable clock.",
        ),
    ] = None,
    injectable_clock: Annotated[
        bool,
        typer.Option(
            "--injectable-clock",
            help="Start the nodes with casslab's injectable clock, for `casslab clock` and "
            "clock-jump faults later (default: Cassandra's own clock, stock nodes).",
        ),
    ] = False,
    jvm_option: Annotated[
        list[str] | None,
        typer.Option(
            "--jvm-option",
            help="A system property or -XX: flag added to every node's java command, e.g. "
            "-Dcassandra.ring_delay_ms=5000 (repeat per option).",
        ),
    ] = None,
    preset: Annotated[
        str | None,
        typer.Option(
            "--preset",
            help="A settings preset under --set: default, or latest (what the version's "
            "conf/cassandra_latest.yaml changes against its conf/cassandra.yaml; Cassandra 5.0+; "
            "read from the version's conf/, else as casslab derived it from the source).",
        ),
    ] = None,
    gc: Annotated[
        str | None,
        typer.Option(
            "--gc",
            help="The nodes' garbage collector: G1 (Cassandra's settings, the default), ZGC, "
            "Shenandoah or Parallel.",
        ),
    ] = None,
    java_home: Annotated[
        str | None,
        typer.Option(
            "--java-home",
            help="The JDK the nodes run on, e.g. /usr/lib/jvm/java-17-openjdk-amd64 "
            "(default: $JAVA_HOME, else java on PATH).",
        ),
    ] = None,
    node_versions: Annotated[
        list[str] | None,
        typer.Option(
            "--node-version",
            help="A node on another Cassandra than --version from the start, e.g. 2=5.0.8 "
            "(repeat per node; one major, the version installed: casslab fetch).",
        ),
    ] = None,
    hosts: Annotated[
        Path | None,
        typer.Option(
            "--hosts",
            help="An inventory file of hosts reached over SSH: one node on each (the ssh backend).",
        ),
    ] = None,
    links: Annotated[
        list[str] | None,
        typer.Option(
            "--link",
            help="An emulated WAN link: dc1-dc2=20ms[,jitter=2ms][,loss=0.1%][,rate=100mbit] "
            "(one-way; repeat per pair; a pair given none adds no delay).",
        ),
    ] = None,
) -> None:
    """Start cluster NAME with its data, or create it: node n listens on 127.0.0.n, or
    with --isolation netns on its own address in its own network namespace; --topology
    puts them in datacenters joined by emulated WAN links (--link)."""
    from casslab.cluster import (
        IsolatedSpec,
        UpOutcome,
        cluster_spec,
        distribution,
        isolated_or_none,
        presets,
        ssh_hosts_or_none,
        warnings_for,
    )
    from casslab.cluster import up as bring_up
    from casslab.cluster.model import MAX_LOCAL_NODES
    from casslab.net.links import link_text
    from casslab.net.topology import parse_topology

    if racks != 1 and topology is None:
        raise UsageError(f"--racks {racks}: racks are per datacenter; give --topology too")

    if nodes is not None and not 1 <= nodes <= MAX_LOCAL_NODES:
        raise UsageError(
            f"--nodes {nodes}: a local cluster has 1 to {MAX_LOCAL_NODES} nodes, e.g. --nodes 3"
        )
    asked: dict[str, Any] = {
        "nodes": nodes,
        "version": cassandra_version,
        "heap": heap,
        "settings": _settings(sets) if sets else None,
        "base_address": base_address,
        "jmx_port_base": jmx_port_base,
        "isolation": isolation,
        "node_size": node_size,
        "cpus": cpus,
        "memory": memory,
        "cpu_scale": cpu_scale,
        "cpuset": cpuset,
        "io_read": io_read,
        "io_write": io_write,
        "subnet": subnet,
        "topology": parse_topology(topology, racks) if topology is not None else None,
        "links": list(links) if links else None,
        "clock": list(clock) if clock else None,
        "injectable_clock": True if injectable_clock else None,
        "hosts": str(hosts) if hosts is not None else None,
        "gc": gc,
        "preset": preset,
        "jvm_options": tuple(jvm_option) if jvm_option else None,
        "node_versions": list(node_versions) if node_versions else None,
        "java_home": java_home,
    }
    given = frozenset(k for k, v in asked.items() if v is not None)
    try:
        spec = cluster_spec(name=name, **{k: asked[k] for k in given})
    except ValueError as error:
        raise ConfigError(spec_message(error)) from error
    for warning in warnings_for(spec):
        console.print(f"[yellow]warning:[/] {warning}")
    start = time.monotonic()
    with console.status("starting…"):
        cluster, outcome = bring_up(spec, given, fresh=fresh, timeout_s=timeout)
    verb = "started with its data" if outcome is UpOutcome.STARTED else "created"
    isolated = isolated_or_none(cluster.state)
    kind = (
        f" ({isolated.isolation.value}, {isolated.limits.describe()})"
        if isolated is not None
        else ""
    )
    on_hosts = ssh_hosts_or_none(cluster.state)
    if on_hosts is not None:
        kind = f" on the hosts of {on_hosts.inventory.path}"
    made_of = cluster.state.spec
    if isinstance(made_of, IsolatedSpec) and made_of.topology is not None:
        kind += f" in datacenters {made_of.topology.text}"
        described = ", ".join(link_text(link) for link in made_of.links)
        kind += f", links {described}" if described else ""
    mixed = ", ".join(f"node {n.number} on {n.version}" for n in cluster.nodes if n.version)
    kind = f" ({mixed})" + kind if mixed else kind
    console.print(
        f"cluster [bold]{cluster.name}[/] {verb}: {len(cluster.nodes)} node(s) of Cassandra "
        f"{cluster.state.cassandra_version}{kind}, heap {cluster.state.heap}, ready in "
        f"{time.monotonic() - start:.1f} s; CQL at {', '.join(cluster.contact_points)}"
    )
    if made_of.preset == presets.LATEST:  # which files, or which source, it came from
        version = cluster.state.cassandra_version
        changes = presets.preset_changes(presets.LATEST, distribution.resolve(version))
        console.print(
            f"settings preset latest: {len(changes.settings)} settings from {changes.source}",
            highlight=False,
        )


def status(name: NameOption = None) -> None:
    """Show every node of the cluster."""
    from casslab.cli.attach import status_table
    from casslab.cluster import BackendKind, attach

    cluster = attach(name)
    if cluster.state.spec.backend is BackendKind.EXTERNAL:
        console.print(status_table(cluster, cluster.status()))
        return
    views = cluster.status()
    placed = any(view.datacenter for view in views)  # a topology, or hosts of an inventory
    table = Table(
        "node",
        "address",
        "version",
        "status",
        "pid",
        "jmx",
        "rss MiB",
        "data MiB",
        "isolation",
        "limits",
        *(["dc", "rack"] if placed else []),
        title=f"cluster {cluster.name} (Cassandra {cluster.state.cassandra_version}, "
        f"heap {cluster.state.heap})",
    )
    colours = {"up": "green", "starting": "yellow", "down": "red"}
    for view in views:
        table.add_row(
            str(view.number),
            f"{view.address}:{view.native_port}",
            view.release_version or "-",
            f"[{colours[view.status]}]{view.status}[/]",
            str(view.pid or "-"),
            str(view.jmx_port),
            f"{view.rss_mib:.0f}" if view.rss_mib is not None else "-",
            f"{view.data_mib:.1f}" if view.data_mib is not None else "-",
            view.isolation,
            view.limits or "-",
            *([view.datacenter or "-", view.rack or "-"] if placed else []),
        )
    console.print(table)
    console.print(f"nodes: {_node_jvm(cluster.state)}")
    if cluster.state.settings:
        applied = ", ".join(f"{k}={v}" for k, v in sorted(cluster.state.settings.items()))
        console.print(f"settings: {applied}")


def _node_jvm(state: Any) -> str:
    """What casslab added to the nodes' JVMs beyond stock Cassandra, from the state and
    the first node's recorded command line (local and isolated nodes)."""
    clock = (
        "casslab's injectable clock (-Dcassandra.clock=casslab.SkewedClock)"
        if state.spec.injectable_clock
        else "Cassandra's own clock (stock)"
    )
    command = state.nodes[0].conf_dir / "command.txt" if state.nodes else None
    line = _read(command) if command is not None else ""
    shared = "; class-data sharing archive for start-up" if "-XX:SharedArchiveFile=" in line else ""
    overhead = re.search(r"-Dcassandra\.memtable\.row_overhead_size=(\d+)", line)
    known = (
        f"; memtable row overhead {overhead.group(1)} B, as a node of this kind computed it"
        if overhead
        else ""
    )
    return clock + shared + known


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except OSError:
        return ""


def down(
    name: NameOption = None,
    remove: Annotated[bool, typer.Option("--remove", help="Also delete its directory.")] = False,
) -> None:
    """Stop every node (SIGTERM, then SIGKILL after a deadline). An external cluster
    (casslab attach) is only forgotten: its nodes are not touched."""
    from casslab.cluster import BackendKind, attach, current_name
    from casslab.cluster import remove as remove_cluster

    if remove:
        chosen = name or current_name()
        if chosen is None:
            raise ConfigError("down --remove: no current cluster; name one with --name")
        external = _is_external(chosen)
        remove_cluster(chosen)
        console.print(
            _FORGOT.format(name=chosen) if external else f"cluster {chosen} stopped and removed"
        )
        return
    cluster = attach(name)
    if cluster.state.spec.backend is BackendKind.EXTERNAL:
        remove_cluster(cluster.name)
        console.print(_FORGOT.format(name=cluster.name))
        return
    killed = cluster.stop()
    note = f" (killed after the deadline: nodes {killed})" if killed else ""
    console.print(f"cluster {cluster.name} stopped{note}")


_FORGOT = (
    "cluster {name} is external: casslab forgot it (removed its state); its nodes were not touched"
)


def _is_external(name: str) -> bool:
    """Cluster ``name`` is external (False too when its state cannot be read)."""
    from casslab.cluster import BackendKind, attach

    try:
        return attach(name).state.spec.backend is BackendKind.EXTERNAL
    except CasslabError:
        return False


def restart(
    name: NameOption = None,
    sets: Annotated[
        list[str] | None, typer.Option("--set", help="Changed cassandra.yaml setting key=value.")
    ] = None,
    timeout: Annotated[
        float, typer.Option("--timeout", min=1, help="Start-up limit, seconds.")
    ] = 240,
) -> None:
    """Restart every node, applying changed settings."""
    from casslab.cluster import attach

    cluster = attach(name)
    start = time.monotonic()
    with console.status("restarting…"):
        cluster.restart(_settings(sets or []), timeout_s=timeout)
    console.print(f"cluster {cluster.name} restarted in {time.monotonic() - start:.1f} s")


def reset(
    name: NameOption = None,
    truncate: Annotated[
        bool, typer.Option("--truncate", help="Truncate tables instead of dropping keyspaces.")
    ] = False,
    keyspaces: Annotated[
        list[str] | None,
        typer.Option("--keyspace", help="Only this keyspace (repeat); default: every one."),
    ] = None,
    tables: Annotated[
        list[str] | None,
        typer.Option("--table", help="Only this KEYSPACE.TABLE (repeat; with --truncate)."),
    ] = None,
) -> None:
    """Empty the cluster without a restart: drop user keyspaces and clear snapshots. An
    external cluster allows only --truncate of named keyspaces or tables."""
    from casslab.cluster import BackendKind, ResetMode, attach

    if tables and not truncate:
        raise UsageError("--table: only a truncate empties single tables; add --truncate")
    named = [*(keyspaces or []), *(tables or [])] or None
    cluster = attach(name)
    start = time.monotonic()
    emptied = cluster.reset(ResetMode.TRUNCATE if truncate else ResetMode.DROP, named)
    verb = "truncated" if truncate else "dropped"
    listed = ", ".join(emptied) or ("nothing" if named else "no user keyspaces")
    missing = [n for n in named or [] if n not in emptied]
    listed += f" (not found: {', '.join(missing)})" if missing else ""
    cleared = "" if cluster.state.spec.backend is BackendKind.EXTERNAL else "; snapshots cleared"
    console.print(f"{verb} {listed}{cleared} in {time.monotonic() - start:.1f} s")


def nodetool(
    ctx: typer.Context,
    node: Annotated[int, typer.Argument(help="Node number (1..N).")],
    name: NameOption = None,
) -> None:
    """Run nodetool against node N: casslab nodetool 1 status."""
    from casslab.cluster import attach

    cluster = attach(name)
    sys.stdout.write(cluster.nodetool(node, *ctx.args))


def cqlsh(
    node: Annotated[int, typer.Argument(help="Node number.")] = 1,
    name: NameOption = None,
    execute: Annotated[
        str | None, typer.Option("--execute", "-e", help="Run this CQL and exit.")
    ] = None,
) -> None:
    """Open cqlsh on node N (default 1)."""
    from casslab.cluster import attach

    cluster = attach(name)
    target = cluster.node(node)
    exe = Path(sys.executable).parent / "cqlsh"
    if not exe.exists():
        found = shutil.which("cqlsh")
        if found is None:
            raise ConfigError("cqlsh is not installed: pip install cqlsh (make setup does)")
        exe = Path(found)
    from casslab.cqlaccess import cqlsh_options

    extra, env, credentials = cqlsh_options(target.access)
    args = [str(exe), target.address, str(target.native_port), *extra]
    if credentials is not None:  # through a pipe: the password is on no command line or disk
        read_end, write_end = os.pipe()
        os.write(write_end, credentials.encode())
        os.close(write_end)
        os.set_inheritable(read_end, True)
        args += ["--credentials", f"/dev/fd/{read_end}"]
    if execute:
        args += ["-e", execute]
    os.execve(args[0], args, {**os.environ, **env})


def logs(
    node: Annotated[int, typer.Argument(help="Node number.")] = 1,
    name: NameOption = None,
    lines: Annotated[int, typer.Option("--lines", "-n", min=0)] = 40,
) -> None:
    """Print the end of node N's system.log."""
    from casslab.cluster import attach
    from casslab.cluster.wait import tail

    cluster = attach(name)
    target = cluster.node(node)
    if target.cql_only:
        raise ClusterError(
            f"logs refused: cluster {cluster.name!r} is external (not started by casslab), "
            "so its logs are on the nodes' hosts; read them there (e.g. `kubectl logs POD`)"
        )
    console.print(f"[dim]{target.log_file}[/]")
    on_host = getattr(cluster, "log_tail", None)  # a node on another host (ssh backend)
    text = on_host(node, lines) if on_host is not None else tail(target.log_file, lines)
    sys.stdout.write(text.rstrip("\n") + "\n")


def register(app: typer.Typer) -> None:
    """Add the cluster commands to the casslab app."""
    for command in (up, status, down, restart, reset):
        app.command()(command)
    app.command(context_settings={"allow_extra_args": True, "ignore_unknown_options": True})(
        nodetool
    )
    app.command()(cqlsh)
    app.command()(logs)
