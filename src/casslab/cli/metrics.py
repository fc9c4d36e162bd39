"""``casslab metrics``: watch a cluster live, record its metrics to Parquet, or serve them
to Prometheus."""

from __future__ import annotations

import math
import os
import sys
import threading
import time
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.live import Live
from rich.table import Table

from casslab import metrics
from casslab.errors import ConfigError
from casslab.metrics.catalogue import CATALOGUE
from casslab.metrics.remote import RemoteNode
from casslab.metrics.source import Gap, NodeTarget, Sample
from casslab.units import duration_s

console = Console()


# (header, metric, scale, format) of the live table.
WATCH_COLUMNS: tuple[tuple[str, str, float, str], ...] = (
    ("host cpu %", "host.cpu_busy_pct", 1.0, "{:.0f}"),
    ("jvm cpu %", "process.cpu_pct", 1.0, "{:.0f}"),
    ("jvm rss MiB", "process.rss_bytes", 1 / 2**20, "{:.0f}"),
    ("reads/s", "cassandra.read_requests_per_s", 1.0, "{:.0f}"),
    ("writes/s", "cassandra.write_requests_per_s", 1.0, "{:.0f}"),
    ("read ms", "cassandra.read_latency_mean_ms", 1.0, "{:.2f}"),
    ("write ms", "cassandra.write_latency_mean_ms", 1.0, "{:.2f}"),
    ("compact pend", "cassandra.compactions_pending", 1.0, "{:.0f}"),
    ("compact run", "cassandra.compactions_running", 1.0, "{:.0f}"),
    ("sstables", "cassandra.sstables", 1.0, "{:.0f}"),
    ("live MiB", "cassandra.live_disk_bytes", 1 / 2**20, "{:.1f}"),
    ("flushes", "cassandra.memtable_flushes", 1.0, "{:.0f}"),
    ("gc ms", "cassandra.gc_pause_ms", 1.0, "{:.0f}"),
    ("disk w MB/s", "host.disk_write_bytes_per_s", 1e-6, "{:.1f}"),
)


def parse_duration_s(text: str, option: str) -> float:
    """``60s``, ``2m``, ``500ms``, ``1h`` or a bare number of seconds."""
    seconds = duration_s(text)
    if seconds is None or seconds <= 0:
        raise ConfigError(f"{option} {text!r}: give a positive duration like 60s, 2m or 500ms")
    return seconds


def _targets(contact_points: list[str] | None, name: str | None) -> _Targets:
    if contact_points:
        points = [p for text in contact_points for p in text.split(",") if p.strip()]
        return _Targets(metrics.targets_from_contact_points(points))
    from casslab.cluster import attach

    return _cluster_targets(attach(name))


def _cluster_targets(cluster: Any) -> _Targets:
    from casslab.cluster import BackendKind
    from casslab.metrics.cluster_sources import cluster_targets

    if cluster.state.spec.backend is BackendKind.EXTERNAL:
        console.print(
            f"[dim]cluster {cluster.name} is external: CQL-visible metrics only (no host, "
            "process, cgroup or JMX samplers for nodes casslab does not run)[/]"
        )
    return _Targets(*cluster_targets(cluster))


class _Targets:
    """The nodes to sample, the readers of remote nodes' hosts, and the SSH connections
    opened for them (closed by :meth:`close`)."""

    def __init__(
        self,
        nodes: list[NodeTarget],
        remote: dict[str, RemoteNode] | None = None,
        owned: list[Any] | None = None,
    ) -> None:
        self.nodes = nodes
        self.remote = remote or {}
        self._owned = owned or []

    def close(self) -> None:
        for thing in reversed(self._owned):  # readers, then their connections
            thing.close()


ContactPoints = Annotated[
    list[str] | None,
    typer.Option(
        "--contact-points",
        "-c",
        help="host[:port] of a node (repeat, or comma-separate); default: the local cluster "
        "casslab started. Nodes given this way are sampled over CQL only.",
    ),
]
NameOption = Annotated[
    str | None, typer.Option("--name", help="Local cluster name (default: the current one).")
]
IntervalOption = Annotated[str, typer.Option("--interval", help="Sampling interval, e.g. 1s.")]
NoJmx = Annotated[
    bool, typer.Option("--no-jmx", help="Do not use JMX (CQL stand-ins for its metrics).")
]


def record(
    duration: Annotated[str, typer.Option("--duration", "-d", help="How long, e.g. 60s.")],
    output: Annotated[Path, typer.Option("--output", "-o", help="Parquet file to write.")],
    interval: IntervalOption = "1s",
    contact_points: ContactPoints = None,
    name: NameOption = None,
    engine_pid: Annotated[
        int | None, typer.Option("--engine-pid", help="Also sample this load-engine process.")
    ] = None,
    no_jmx: NoJmx = False,
) -> None:
    """Record every metric of every node to long-format Parquet (time, node, metric, value)."""
    duration_s = parse_duration_s(duration, "--duration")
    interval_s = parse_duration_s(interval, "--interval")
    targets = _targets(contact_points, name)
    rec = metrics.recorder(
        targets.nodes,
        output,
        interval_s=interval_s,
        engine_pid=engine_pid,
        use_jmx=not no_jmx,
        remote=targets.remote,
    )
    console.print(
        f"Recording {len(targets.nodes)} node(s) every {interval_s:g} s for {duration_s:g} s "
        f"into {output}"
    )
    with rec:
        time.sleep(duration_s)
    targets.close()
    console.print(
        f"Wrote {rec.samples_recorded} samples over {rec.ticks} instants, "
        f"{rec.gaps_recorded} gap(s), to {output} (gaps: {output.stem}.gaps{output.suffix})"
    )


class _Latest:
    """The newest value of each (node, metric), filled by the sampling thread, and the
    number and time of its ticks."""

    def __init__(self) -> None:
        self.values: dict[tuple[str, str], float] = {}
        self.gaps: dict[str, str] = {}
        self.ticks = 0
        self.now = 0.0
        self.lock = threading.Lock()

    def update(self, now: float, samples: list[Sample], gaps: list[Gap]) -> None:
        with self.lock:
            for s in samples:
                self.values[(s.node, s.metric)] = s.value
            self.gaps = {f"{g.node} {g.source}": g.error for g in gaps}
            self.ticks += 1
            self.now = now


def _cells(values: dict[tuple[str, str], float], node: str) -> list[str]:
    """A node's watched metrics, formatted (``-`` where none was sampled)."""
    cells = []
    for _, metric_name, scale, fmt in WATCH_COLUMNS:
        v = values.get((node, metric_name))
        cells.append("-" if v is None or math.isnan(v) else fmt.format(v * scale))
    return cells


def _render(latest: _Latest, nodes: list[str]) -> Table:
    table = Table(title="casslab metrics (Ctrl-C to stop)")
    table.add_column("node")
    for header, *_ in WATCH_COLUMNS:
        table.add_column(header, justify="right")
    with latest.lock:
        for node in nodes:
            table.add_row(node, *_cells(latest.values, node))
        if latest.gaps:
            table.caption = "gaps: " + "; ".join(f"{k}: {v}" for k, v in latest.gaps.items())
    return table


def plain_header() -> str:
    """The first line of the piped form: tab-separated column names."""
    return "\t".join(["time", "node", *(header for header, *_ in WATCH_COLUMNS)])


def plain_rows(
    values: dict[tuple[str, str], float], nodes: list[str], now: float, gaps: dict[str, str]
) -> list[str]:
    """One tick in the piped form: a tab-separated line per node (UTC time of the tick),
    then a ``# gaps:`` line if a source could not be read."""
    stamp = time.strftime("%H:%M:%S", time.gmtime(now))
    rows = ["\t".join([stamp, node, *_cells(values, node)]) for node in nodes]
    if gaps:
        rows.append("# gaps: " + "; ".join(f"{k}: {v}" for k, v in gaps.items()))
    return rows


def watch(
    interval: IntervalOption = "1s",
    contact_points: ContactPoints = None,
    name: NameOption = None,
    duration: Annotated[
        str | None, typer.Option("--duration", "-d", help="Stop after this long.")
    ] = None,
    no_jmx: NoJmx = False,
) -> None:
    """Show a live per-node table of the main metrics (piped or redirected: a tab-separated
    line per node per interval instead)."""
    interval_s = parse_duration_s(interval, "--interval")
    until = (
        None if duration is None else time.monotonic() + parse_duration_s(duration, "--duration")
    )
    targets = _targets(contact_points, name)
    latest = _Latest()
    nodes = [t.label for t in targets.nodes]
    rec = metrics.recorder(
        targets.nodes,
        None,
        interval_s=interval_s,
        use_jmx=not no_jmx,
        on_tick=latest.update,
        remote=targets.remote,
    )
    try:
        if console.is_terminal:
            with rec, Live(_render(latest, nodes), console=console, auto_refresh=False) as live:
                while until is None or time.monotonic() < until:
                    time.sleep(min(interval_s, 1.0))
                    live.update(_render(latest, nodes), refresh=True)
        else:  # piped or redirected: a line per node per tick, as it comes
            with rec:
                _print_lines(latest, nodes, until)
    except KeyboardInterrupt:
        pass
    targets.close()


def _print_lines(latest: _Latest, nodes: list[str], until: float | None) -> None:
    """The piped form of ``watch``: the header, then each new tick's rows, flushed at once
    (a file or a pipe gets every tick, not one table at the end)."""
    try:
        print(plain_header(), flush=True)
        printed = 0
        while until is None or time.monotonic() < until:
            time.sleep(0.1)
            with latest.lock:
                if latest.ticks == printed:
                    continue
                printed = latest.ticks
                rows = plain_rows(latest.values, nodes, latest.now, latest.gaps)
            print("\n".join(rows), flush=True)
    except BrokenPipeError:  # the reader went away (`| head`): stop watching, quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def catalogue() -> None:
    """List every metric casslab records (the same as docs/metrics.md)."""
    table = Table()
    for col in ("name", "unit", "kind", "source", "meaning"):
        table.add_column(col)
    for m in CATALOGUE:
        table.add_row(m.name, m.unit, m.kind.value, m.source.value, m.help)
    console.print(table)


def serve(
    port: Annotated[
        int, typer.Option("--port", "-p", help="TCP port to serve on (0: any free one).")
    ] = 9464,
    address: Annotated[
        str,
        typer.Option(
            "--address",
            help="Address to listen on; one other than loopback needs --allow-remote.",
        ),
    ] = "127.0.0.1",
    allow_remote: Annotated[
        bool,
        typer.Option(
            "--allow-remote",
            help="Allow an --address other machines can reach (they see the metrics).",
        ),
    ] = False,
    name: NameOption = None,
    interval: IntervalOption = "1s",
    no_jmx: NoJmx = False,
) -> None:
    """Serve every metric of the cluster's nodes in the Prometheus format until Ctrl-C."""
    from casslab.cluster import attach
    from casslab.metrics.prom_cluster import cluster_labels
    from casslab.metrics.prom_server import MetricsServer, check_bind
    from casslab.metrics.prom_store import DEFAULT_MAX_AGE_S, LatestValues

    interval_s = parse_duration_s(interval, "--interval")
    check_bind(address, port, allow_remote=allow_remote)  # before any sampler starts
    cluster = attach(name)
    targets = _cluster_targets(cluster)
    store = LatestValues(cluster_labels(cluster), max_age_s=max(DEFAULT_MAX_AGE_S, 5 * interval_s))
    try:
        with MetricsServer(store, port=port, address=address, allow_remote=allow_remote) as server:
            rec = metrics.recorder(
                targets.nodes,
                None,
                interval_s=interval_s,
                use_jmx=not no_jmx,
                on_tick=store.update,
                remote=targets.remote,
            )
            with rec:
                console.print(
                    f"Serving the metrics of {len(targets.nodes)} node(s) of cluster "
                    f"{cluster.name} at {server.url}, sampled every {interval_s:g} s "
                    "(Ctrl-C to stop)",
                    highlight=False,
                    soft_wrap=True,
                )
                try:
                    while True:
                        time.sleep(3600)
                except KeyboardInterrupt:
                    pass
    finally:
        targets.close()
    console.print("Stopped serving metrics")


def register(app: typer.Typer) -> None:
    """Add the ``metrics`` command group to the casslab app."""
    group = typer.Typer(
        name="metrics", help="Per-second database, process and OS metrics.", no_args_is_help=True
    )
    group.command("record")(record)
    group.command("watch")(watch)
    group.command("list")(catalogue)
    group.command("serve")(serve)
    app.add_typer(group, name="metrics")
