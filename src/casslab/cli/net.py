"""``casslab net``: the emulated WAN links of a cluster with datacenters: show them, change
them at run time, cut a datacenter off and heal it, and measure round trips."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from casslab.cli.cluster import NameOption
from casslab.errors import ConfigError

console = Console()
net_app = typer.Typer(help="Emulated WAN links between datacenters.", no_args_is_help=True)


@net_app.command("show")
def show(name: NameOption = None) -> None:
    """Every link: its settings, whether it is cut, whether its emulator runs."""
    from casslab.net import keeper

    directory = _links_dir(name)
    table = Table("link", "delay", "jitter", "loss", "rate", "state", "emulator", "restarts")
    for health in keeper.health(directory):
        link = health.link
        table.add_row(
            health.name,
            f"{link.delay_ms} ms",
            f"{link.jitter_ms} ms" if link.jitter_ms else "-",
            f"{link.loss_pct:g}%" if link.loss_pct else "-",
            f"{link.rate_bps / 1e6:g} Mbit/s" if link.rate_bps else "-",
            "[red]cut[/]" if health.partitioned else "[green]up[/]",
            "running" if health.alive else "[red]down[/]",
            str(health.restarts),
        )
    console.print(table)


@net_app.command("set")
def set_link(
    pair: Annotated[str, typer.Argument(help="The link, e.g. dc1-dc2.")],
    values: Annotated[
        list[str], typer.Argument(help="delay=80ms jitter=2ms loss=0.5% rate=50mbit")
    ],
    name: NameOption = None,
) -> None:
    """Change a link now: casslab net set dc1-dc2 delay=80ms (the others stay)."""
    from casslab.net import keeper
    from casslab.net.links import changed, link_text

    directory = _links_dir(name)
    current = {h.name: h.link for h in keeper.health(directory)}
    link_name = _link_name(pair, list(current))
    updated = changed(current[link_name], values)
    plan = keeper.set_link(directory, link_name, link=updated)
    console.print(f"link {link_text(plan.link)}")


@net_app.command("partition")
def partition(
    target: Annotated[str, typer.Argument(help="A datacenter (dc3) or a link (dc1-dc3).")],
    name: NameOption = None,
) -> None:
    """Cut a datacenter off from the others (every link touching it), or one link."""
    names = _apply_cut(target, name, cut=True)
    console.print(f"cut: {', '.join(names)}")


@net_app.command("heal")
def heal(
    target: Annotated[
        str | None, typer.Argument(help="A datacenter or a link (default: every link).")
    ] = None,
    name: NameOption = None,
) -> None:
    """Heal cut links (their configured loss comes back)."""
    names = _apply_cut(target, name, cut=False)
    console.print(f"healed: {', '.join(names)}")


@net_app.command("ping")
def ping(
    source: Annotated[int, typer.Argument(help="From node N.")],
    target: Annotated[int, typer.Argument(help="To node M.")],
    count: Annotated[int, typer.Option("--count", "-c", help="Round trips.")] = 10,
    name: NameOption = None,
) -> None:
    """Round-trip time from node N to node M (TCP connects to M's storage port, from
    inside N's namespace), beside what the links configure."""
    from casslab.cluster import attach
    from casslab.net.probe import measure, summarize

    cluster = attach(name)
    a, b = cluster.node(source), cluster.node(target)
    if a.netns is None:
        raise ConfigError("casslab net ping needs nodes in network namespaces (--isolation netns)")
    summary = summarize(measure(a.netns, b.address, b.storage_port, count))
    where = f"{a.datacenter or '-'} -> {b.datacenter or '-'}"
    if summary.p50_ms is None:
        console.print(f"node {source} -> {target} ({where}): all {count} connects lost")
        raise typer.Exit(1)
    console.print(
        f"node {source} -> {target} ({where}): RTT min {summary.min_ms:.2f} ms, p50 "
        f"{summary.p50_ms:.2f} ms, max {summary.max_ms:.2f} ms, lost {summary.lost}/{count}"
    )


def _links_dir(name: str | None) -> Path:
    """Where the keeper of cluster ``name`` (default: the current one) keeps its links."""
    from casslab.cluster import attach
    from casslab.cluster.capabilities import links_of

    return links_of(attach(name)).keeper_dir()


def _link_name(pair: str, known: list[str]) -> str:
    from casslab.net import cuts

    return cuts.link_name(pair, known)


def _apply_cut(target: str | None, name: str | None, *, cut: bool) -> list[str]:
    from casslab.net import cuts

    directory = _links_dir(name)
    chosen = cuts.chosen_links(directory, target)
    cuts.set_cut(directory, chosen, cut=cut)
    return chosen


def register(app: typer.Typer) -> None:
    app.add_typer(net_app, name="net")
