"""``casslab capacity size RUN_DIR... --workload NAME --ops N [--p99 10ms] [--rf 3]
[--json]``: check the target, read the runs, call :func:`casslab.capacity.size.size_nodes`,
render its answer (a rich table, or the answer record as JSON). Exits 1 when no node size
is expected to meet the target."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

if TYPE_CHECKING:
    from casslab.capacity.size import SizeAnswer, SizeOption

console = Console()


def _count(nodes: int | None, largest: int | None) -> str:
    if nodes is None:
        return "-"
    return f"{nodes}*" if largest is not None and nodes > largest else str(nodes)


def _measured(option: SizeOption) -> str:
    parts = []
    for point in option.points:
        t = point.throughput
        ci = " [no CI]"
        if t.ci_low is not None and t.ci_high is not None:
            ci = f" [{t.ci_low:.0f}, {t.ci_high:.0f}]"
        p99 = f", p99 {point.latency_p99_ms:.1f} ms" if point.latency_p99_ms is not None else ""
        parts.append(f"{t.nodes}: {t.ops_mean:.0f}{ci} (n {t.n}{p99})")
    return "\n".join(parts) or "-"


def _render(answer: SizeAnswer) -> None:
    slo_ms = answer.latency_p99_slo_ms
    slo = f", p99 <= {slo_ms:g} ms" if slo_ms is not None else ""
    table = Table(
        title=f"{answer.workload}: {answer.target_ops_per_s:,.0f} ops/s, rf {answer.rf}{slo}"
    )
    for column in ("node size", "nodes (95% conf.)", "expected", "optimistic"):
        table.add_column(column)
    table.add_column("measured: nodes: ops/s [95% CI]")
    table.add_column("notes")
    for option in answer.options:
        largest = option.largest_measured_nodes
        table.add_row(
            escape(option.vm_type),
            _count(option.nodes_confident, largest),
            _count(option.nodes_expected, largest),
            _count(option.nodes_optimistic, largest),
            escape(_measured(option)),
            escape("\n".join(option.reasons)),
        )
    console.print(table)
    console.print(
        "nodes: the smallest count >= rf whose modelled throughput (linear through (0, 0) and "
        "the measured points' CI low, mean, CI high) meets the target; *: beyond the largest "
        "measured count (extrapolated); -: never, or no CI. The band is pointwise.",
        highlight=False,
        soft_wrap=True,
    )


def size_command(
    run_dirs: Annotated[
        list[Path],
        typer.Argument(
            metavar="RUN_DIR",
            help="Run directories (results/<experiment>/<run-id>) with node_size and nodes.",
        ),
    ],
    workload: Annotated[
        str,
        typer.Option("--workload", help="The workload factor's level, or the experiment's name."),
    ],
    ops: Annotated[float, typer.Option("--ops", help="The target throughput, ops/s.")],
    p99: Annotated[
        str | None,
        typer.Option("--p99", help="Count only groups with mean p99 at most this (10ms, 0.5s)."),
    ] = None,
    rf: Annotated[int, typer.Option("--rf", help="Replication factor: the fewest nodes.")] = 3,
    as_json: Annotated[
        bool,
        typer.Option(
            "--json",
            help='{"workload", "target_ops_per_s", "options": [{"vm_type", "nodes_confident", '
            '"nodes_expected", "nodes_optimistic", "extrapolated", "points", "reasons"}]}',
        ),
    ] = False,
) -> None:
    """How many nodes of each size meet a throughput target, from measured runs.

    Per node size: the measured points (the best group per node count, under the p99 SLO),
    t(n) linear through them, and the smallest n >= rf meeting the target with the 95% CI's
    low end (confident), its mean (expected) and its high end (optimistic).
    """
    from casslab.capacity.find_settings import parse_slo_ms
    from casslab.capacity.size import check_target, size_nodes

    check_target(ops, rf)
    slo_ms = parse_slo_ms(p99) if p99 is not None else None
    from casslab.capacity.throughput_runs import read_runs  # pandas: only when used

    answer = size_nodes(read_runs(run_dirs), workload, ops, rf, slo_ms)
    if as_json:
        typer.echo(answer.model_dump_json(indent=2))
    else:
        _render(answer)
    if all(option.nodes_expected is None for option in answer.options):
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    """Add ``size`` to the capacity group."""
    app.command("size")(size_command)
