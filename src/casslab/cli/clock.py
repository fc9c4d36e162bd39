"""``casslab clock``: each node's clock against casslab's (offset and probe delay), and
the skew injected into a node's clock: ``clock set 2 -500ms``, ``clock drift 2 +50ppm``."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.table import Table

from casslab.cli.cluster import NameOption
from casslab.errors import ClusterError, ConfigError, UsageError

if TYPE_CHECKING:
    from casslab.cluster.backend import Cluster
    from casslab.cluster.model import Node

console = Console()
clock_app = typer.Typer(
    help="Nodes' clocks: measure their offsets, inject skew.", invoke_without_command=True
)


@clock_app.callback()
def show(
    ctx: typer.Context,
    name: NameOption = None,
    as_json: Annotated[
        bool, typer.Option("--json", help='[{"node": n, "offset_ms": x, "delay_ms": y}]')
    ] = False,
) -> None:
    """Each node's clock minus casslab's (NTP estimate over CQL) and the probe's delay."""
    if ctx.invoked_subcommand is not None:
        return
    from casslab.cluster import attach
    from casslab.cluster.clock_skew import read_skew
    from casslab.metrics.clock_offset import read_clock

    cluster = attach(name)
    rows = []
    for node in cluster.nodes:
        reading = read_clock(cluster.session(node=node.number), burst=5)
        rows.append((node, reading, read_skew(node)))
    cluster.close_sessions()
    if as_json:
        listed = [
            {"node": n.number, "offset_ms": round(r.offset_ms, 3), "delay_ms": round(r.delay_ms, 3)}
            for n, r, _ in rows
        ]
        typer.echo(json.dumps(listed))
        return
    table = Table("node", "address", "offset ms", "delay ms", "injected")
    for node, reading, skew in rows:
        injected = f"{skew.offset_ms:+g} ms" + (
            f", {skew.drift_ppm:+g} ppm" if skew.drift_ppm else ""
        )
        table.add_row(
            str(node.number),
            node.address,
            f"{reading.offset_ms:+.1f}",
            f"{reading.delay_ms:.1f}",
            injected if skew.offset_ms or skew.drift_ppm else "-",
        )
    console.print(table)


# a negative offset or drift (-500ms, -20ppm) is an argument, not an option
_SIGNED = {"ignore_unknown_options": True}


@clock_app.command("set", context_settings=_SIGNED)
def set_offset(
    node: Annotated[int, typer.Argument(help="Node number.")],
    offset: Annotated[str, typer.Argument(help="Its clock's offset now, e.g. -500ms or +1.5s.")],
    name: NameOption = None,
) -> None:
    """Step node N's clock to OFFSET from the host's (it keeps its drift); within 100 ms."""
    from casslab.cluster import attach, clock_skew

    cluster = attach(name)
    skew = clock_skew.set_offset(_clock_node(cluster, node), clock_skew.parse_offset(offset))
    console.print(f"node {node}: clock offset {skew.offset_ms:+g} ms")


@clock_app.command("drift", context_settings=_SIGNED)
def set_drift(
    node: Annotated[int, typer.Argument(help="Node number.")],
    drift: Annotated[str, typer.Argument(help="Parts per million, e.g. +50ppm or -20ppm.")],
    name: NameOption = None,
) -> None:
    """Let node N's clock gain (or lose) DRIFT from now on, from the offset it has now."""
    from casslab.cluster import attach, clock_skew

    cluster = attach(name)
    skew = clock_skew.set_drift(_clock_node(cluster, node), clock_skew.parse_drift(drift))
    console.print(
        f"node {node}: clock offset {skew.offset_ms:+g} ms, drifting {skew.drift_ppm:+g} ppm"
    )


@clock_app.command("lww", context_settings=_SIGNED)
def lww(
    skews: Annotated[
        str, typer.Option("--skews", help="The skewed node's offsets, e.g. 0ms,-50ms,-500ms.")
    ] = "0ms,-50ms,-500ms",
    gaps: Annotated[
        str, typer.Option("--gaps", help="Waits between the two writes, e.g. 10ms,100ms,1s.")
    ] = "10ms,100ms",
    keys: Annotated[int, typer.Option("--keys", help="Keys (updates) per case.")] = 100,
    node: Annotated[int, typer.Option("--node", help="The skewed node.")] = 2,
    name: NameOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object per case.")] = False,
) -> None:
    """Last-write-wins under clock skew: v1 through node 1, a gap, v2 through the skewed
    node, read at ALL; the fraction of acknowledged updates lost, with its 95% Wilson
    interval, for every skew x gap with server-side timestamps, and the control with
    client-side timestamps (the node's clock is set back afterwards). A node behind by
    more than the write timeout has its v2 writes fail instead: the other replicas drop its
    messages as expired (counted from system_views.internode_inbound)."""
    from casslab.cluster import attach, clock_skew
    from casslab.cluster.lww import LwwCase, run_case

    if keys < 1:
        raise UsageError(f"--keys {keys}: give at least 1 key per case, e.g. --keys 100")
    offsets = [clock_skew.parse_offset(s) for s in skews.split(",")]
    waits = [_gap_ms(g) for g in gaps.split(",")]
    cluster = attach(name)
    good = next((n.number for n in cluster.nodes if n.number != node), None)
    _clock_node(cluster, node)
    if good is None:
        raise ConfigError("the study needs two nodes: one with a good clock, one skewed")
    cases = [LwwCase(skew_ms=s, gap_ms=g) for s in offsets for g in waits]
    cases += [LwwCase(skew_ms=min(offsets), gap_ms=min(waits), client_timestamps=True)]
    table = Table(
        "skew ms",
        "gap ms",
        "timestamps",
        "lost (of acknowledged)",
        "95% CI",
        "last-write-wins says",
        "v2 failed",
        "expired msgs",
    )
    for case in cases:
        result = run_case(cluster, case, keys=keys, good=good, skewed=node)
        lost = result.lost
        if as_json:
            typer.echo(result.model_dump_json())
            continue
        table.add_row(
            f"{case.skew_ms:+g}",
            f"{case.gap_ms:g}",
            "client" if case.client_timestamps else "server",
            f"{lost.hits}/{lost.n} ({lost.fraction:.0%})" if lost else "none acknowledged",
            f"{lost.low:.0%}-{lost.high:.0%}" if lost else "-",
            "lost" if result.expected_lost else "kept",
            f"{result.unacknowledged}/{keys}",
            str(result.expired),
        )
    if not as_json:
        console.print(table)


def _gap_ms(text: str) -> float:
    from casslab.units import duration_s

    seconds = duration_s(text)
    if seconds is None:
        raise UsageError(f"--gaps {text!r}: give a duration, e.g. 100ms or 1s")
    return seconds * 1000


def _clock_node(cluster: Cluster, number: int) -> Node:
    """Node ``number`` of ``cluster``, whose Cassandra has the pluggable clock."""
    from casslab.cluster import clock_skew

    if cluster.node(number).cql_only:
        raise ClusterError(
            f"clock skew refused: cluster {cluster.name!r} is external (not started by "
            "casslab), so casslab cannot inject skew into its nodes; `casslab clock` shows "
            "their offsets"
        )
    clock_skew.require_injectable(cluster.state)
    return cluster.node(number)


def register(app: typer.Typer) -> None:
    app.add_typer(clock_app, name="clock")
