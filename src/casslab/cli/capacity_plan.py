"""``casslab capacity plan PROBLEM.yaml [--json]``: read the problem, call the planner,
render its answer (a rich table, or the answer record as JSON). Exits 1 when there is no
placement (infeasible, or none found within the time limit).

``casslab capacity model RUN_DIR... [--json]``: the problem file's ``throughput:`` block
from measured runs (its input; registered here with ``plan``)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from casslab.errors import UsageError

if TYPE_CHECKING:
    from casslab.capacity.answer import PlanAnswer
    from casslab.capacity.problem import PlanProblem

console = Console()


def _tenant_table(problem: PlanProblem, answer: PlanAnswer) -> Table:
    table = Table("tenant", "workload", "VM type", "vnodes", "ops/s (model)", "min ops/s")
    table.add_column("placement (machine: vnodes)")
    for name, got in answer.tenants.items():
        tenant = problem.tenants[name]
        placement = ", ".join(f"{machine}: {n}" for machine, n in got.placement.items())
        table.add_row(
            escape(name),
            escape(tenant.workload),
            escape(got.vm_type),
            str(got.vnodes),
            f"{got.throughput_ops:.0f}",
            f"{tenant.min_ops:g}",
            escape(placement),
        )
    return table


def _machine_table(problem: PlanProblem, answer: PlanAnswer) -> Table:
    table = Table("machine", "CPUs used", "memory GiB used", "power W")
    for name, use in answer.machines.items():
        machine = problem.machine(name)
        table.add_row(
            escape(name),
            f"{use.cpus_used:g} / {machine.cpus:g}",
            f"{use.memory_gib_used:g} / {machine.memory_gib:g}",
            f"{use.power_w:.1f}",
        )
    return table


def _render(problem: PlanProblem, answer: PlanAnswer) -> None:
    if answer.power_w is None:
        console.print(f"[bold red]{answer.status.value}[/]", highlight=False)
        for reason in answer.reasons:
            console.print(escape(reason), highlight=False, soft_wrap=True)
        return
    console.print(_tenant_table(problem, answer))
    console.print(_machine_table(problem, answer))
    off = len(problem.machines) - len(answer.machines)
    console.print(
        f"power: {answer.power_w:.1f} W ({answer.status.value}, solved in "
        f"{answer.solve_time_s:.2f} s); {len(answer.machines)} machine(s) on, {off} off",
        highlight=False,
    )
    for reason in answer.reasons:
        console.print(f"[yellow]warning:[/] {escape(reason)}", highlight=False, soft_wrap=True)


def plan_command(
    problem_file: Annotated[
        Path,
        typer.Argument(
            metavar="PROBLEM.yaml",
            help="Machines, VM types, tenants and throughput (experiments/capacity/ has examples).",
        ),
    ],
    as_json: Annotated[
        bool,
        typer.Option(
            "--json",
            help='{"status", "power_w", "tenants": {name: {"vm_type", "vnodes", "placement"}}, '
            '"machines": {name: {"cpus_used", "memory_gib_used", "power_w"}}, "reasons"}',
        ),
    ] = False,
    time_limit: Annotated[
        float, typer.Option("--time-limit", help="Solver time limit, seconds.")
    ] = 60.0,
) -> None:
    """Place tenants' Cassandra virtual nodes on machines at least power (seed 003's model).

    Each tenant gets one VM type and enough nodes for its data (rf x data / heap) and its
    minimum throughput, on at least rf machines, within each machine's CPUs and memory.
    Only machines in use are listed; the others are off and draw nothing.
    """
    if time_limit <= 0:
        raise UsageError(f"--time-limit: must be > 0 seconds, got {time_limit:g}")
    from casslab.capacity.plan import plan  # scipy: only when planning
    from casslab.capacity.problem_load import load_problem

    problem = load_problem(problem_file)
    answer = plan(problem, time_limit)
    if as_json:
        typer.echo(answer.model_dump_json(indent=2))
    else:
        _render(problem, answer)
    if answer.power_w is None:
        raise typer.Exit(1)


def model_command(
    run_dirs: Annotated[
        list[Path],
        typer.Argument(
            metavar="RUN_DIR",
            help="Run directories (results/<experiment>/<run-id>) with node_size and nodes.",
        ),
    ],
    as_json: Annotated[
        bool, typer.Option("--json", help="One record per point, with its 95% CI.")
    ] = False,
) -> None:
    """The throughput table of a capacity problem from measured runs, with 95% CIs.

    Per workload, node size and node count: the mean op rate (the highest over other
    factors such as threads) with its 95% CI, as a throughput: block for PROBLEM.yaml."""
    import json

    from casslab.capacity.throughput_fit import fit_throughput, throughput_yaml
    from casslab.capacity.throughput_runs import read_runs  # pandas: only when used

    points = fit_throughput(read_runs(run_dirs))
    if as_json:
        typer.echo(json.dumps([p.model_dump(mode="json") for p in points], indent=2))
    else:
        typer.echo(throughput_yaml(points), nl=False)


def register(app: typer.Typer) -> None:
    """Add ``plan`` and ``model`` (its throughput table from runs) to the capacity group."""
    app.command("plan")(plan_command)
    app.command("model")(model_command)
