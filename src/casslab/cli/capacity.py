"""``casslab capacity``: find a cluster's capacity under a latency SLO, plan machines for
tenants. Each subcommand lives in its own module (``capacity_find``, ``capacity_plan``)."""

from __future__ import annotations

import typer

from casslab.cli import capacity_find, capacity_plan, capacity_size

capacity_app = typer.Typer(
    name="capacity",
    help="Capacity: the highest rate under a latency SLO, and a capacity planner.",
    no_args_is_help=True,
)


def register(app: typer.Typer) -> None:
    """Add the ``capacity`` group to the casslab app."""
    capacity_find.register(capacity_app)
    capacity_plan.register(capacity_app)
    capacity_size.register(capacity_app)
    app.add_typer(capacity_app, name="capacity")
