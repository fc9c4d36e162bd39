"""``casslab fault kill|pause|stop|clock-jump|slow-disk N --for 15s`` and ``fault partition
dc3``: put node N (or a topology's links) of a cluster casslab started under a fault by
hand, and bring it back after the time given (or at Ctrl-C, or on an error): a killed or
stopped node is started again and waited for, a paused one continued, a clock stepped
back, links healed, a disk throttle lifted. Each
command names a kind registered in :mod:`casslab.faults.fault_kinds` (what it does: its
folder under :mod:`casslab.faults.kinds`); a timeline of them in an experiment: its
``faults:``."""

from __future__ import annotations

import time
from typing import Annotated

import typer
from rich.console import Console

from casslab.cli.cluster import NameOption
from casslab.errors import ConfigError, UsageError

console = Console()
fault_app = typer.Typer(
    help="Faults by hand: kill, pause, stop, slow the disk of a node for a while; partition."
)

ForOption = Annotated[
    str, typer.Option("--for", help="How long the fault lasts, e.g. 15s or 1m (then back).")
]
TimeoutOption = Annotated[
    float, typer.Option("--timeout", min=1, help="Start-up limit of a killed or stopped node, s.")
]


def _fault(
    kind: str,
    node: int | str,
    lasting: str,
    name: str | None,
    timeout_s: float,
    **fields: object,
) -> None:
    """Put ``node`` (or a place) of cluster ``name`` under the fault kind registered as
    ``kind`` (with its own ``fields``, as the file writes them) for ``lasting``."""
    from pydantic import ValidationError

    from casslab.cluster import attach
    from casslab.faults import actions
    from casslab.faults.model import Fault
    from casslab.units import duration_s

    seconds = duration_s(lasting)
    if seconds is None or seconds <= 0:
        raise UsageError(f"--for {lasting!r}: give a duration above zero, such as 15s or 1m")
    given = {key: value for key, value in fields.items() if value is not None}
    try:
        fault = Fault.model_validate(
            {"at": 0, "kind": kind, "target": node, "for": seconds} | given
        )
    except ValidationError as error:
        said = "; ".join(str(e["msg"]).removeprefix("Value error, ") for e in error.errors())
        raise ConfigError(f"fault {kind} {node}: {said}") from None
    cluster = attach(name)
    if isinstance(node, int):
        cluster.node(node)  # names the nodes there are
    actions.check(cluster, fault)
    start = time.monotonic()
    before = actions.begin(cluster, fault)
    links = [str(link) for link in before] if isinstance(before, list) else []
    what = f"node {node}" if isinstance(node, int) else f"links {', '.join(links)}"
    try:
        console.print(f"{what}: {kind} (for {seconds:g} s; Ctrl-C ends it now)", highlight=False)
        time.sleep(max(0.0, seconds - (time.monotonic() - start)))
    except KeyboardInterrupt:
        console.print("ending the fault now")
    finally:  # also on an error: no node is left under the fault
        with console.status(f"bringing {what} back…"):
            actions.end(cluster, fault, timeout_s, before)
    console.print(f"{what} back after {time.monotonic() - start:.1f} s", highlight=False)


@fault_app.command("kill")
def kill(
    node: Annotated[int, typer.Argument(help="The node's number.")],
    lasting: ForOption = "15s",
    name: NameOption = None,
    timeout: TimeoutOption = 240,
) -> None:
    """SIGKILL the node's JVM; start it again after --for and wait until it is ready."""
    _fault("kill", node, lasting, name, timeout)


@fault_app.command("pause")
def pause(
    node: Annotated[int, typer.Argument(help="The node's number.")],
    lasting: ForOption = "15s",
    name: NameOption = None,
    timeout: TimeoutOption = 240,
) -> None:
    """SIGSTOP the node's JVM (it holds its connections but answers nothing); SIGCONT
    after --for."""
    _fault("pause", node, lasting, name, timeout)


@fault_app.command("stop")
def stop(
    node: Annotated[int, typer.Argument(help="The node's number.")],
    lasting: ForOption = "15s",
    name: NameOption = None,
    timeout: TimeoutOption = 240,
) -> None:
    """nodetool drain, then stop the node; start it again after --for."""
    _fault("stop", node, lasting, name, timeout)


@fault_app.command("clock-jump")
def clock_jump(
    node: Annotated[int, typer.Argument(help="The node's number.")],
    by: Annotated[str, typer.Option("--by", help="How far the clock steps, e.g. -5s or +500ms.")],
    lasting: ForOption = "15s",
    name: NameOption = None,
) -> None:
    """Step the node's wall clock by --by (on top of its skew), and back after --for."""
    from casslab.cluster.clock_skew import parse_offset

    _fault("clock-jump", node, lasting, name, 0.0, offset=parse_offset(by))


@fault_app.command("partition")
def partition(
    target: Annotated[str, typer.Argument(help="A datacenter (dc3) or a link (dc1-dc3).")],
    lasting: ForOption = "15s",
    name: NameOption = None,
) -> None:
    """Cut a topology's links to a datacenter (or one link), and heal them after --for."""
    _fault("partition", target, lasting, name, 0.0)


@fault_app.command("slow-disk")
def slow_disk(
    node: Annotated[int, typer.Argument(help="The node's number.")],
    rate: Annotated[
        str | None,
        typer.Option("--rate", help="Read and write bandwidth of its data disk, e.g. 1MiB/s."),
    ] = None,
    iops: Annotated[
        int | None, typer.Option("--iops", min=1, help="Read and write operations per second.")
    ] = None,
    lasting: ForOption = "15s",
    name: NameOption = None,
) -> None:
    """Throttle the block I/O of the node's cgroup on its data disk to --rate and/or
    --iops, and lift it after --for. Isolated nodes only (casslab up --isolation netns, or
    a limit such as --cpus). With cgroup v1, buffered writes are written back outside the
    node's cgroup and pass unthrottled: the throttle bites on reads that miss the page
    cache, direct I/O and the commit log's syncs (cgroup v2 throttles writeback too)."""
    from casslab.faults.kinds.slow_disk.slow_disk_fault import parse_rate

    if rate is None and iops is None:
        raise ConfigError("slow-disk needs --rate (e.g. 1MiB/s) and/or --iops (e.g. 50)")
    try:
        rate_bps = None if rate is None else parse_rate(rate, "--rate")
    except ValueError as error:
        raise ConfigError(str(error)) from None
    _fault("slow-disk", node, lasting, name, 0.0, rate=rate_bps, iops=iops)


def register(app: typer.Typer) -> None:
    app.add_typer(fault_app, name="fault")
