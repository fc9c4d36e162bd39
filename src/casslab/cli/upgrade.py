"""``casslab upgrade --to 5.0.9``: a rolling upgrade of a cluster casslab started, by hand:
node by node, drained, stopped and started on the new version with its data, the next
once every node sees every other UP/NORMAL (the ``upgrade`` operation of an experiment's
timeline, :mod:`casslab.faults.kinds.upgrade`). Each node's time is printed."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.console import Console

from casslab.cli.cluster import NameOption

console = Console()


def upgrade(
    to: Annotated[str, typer.Option("--to", help="The Cassandra version, e.g. 5.0.9.")],
    name: NameOption = None,
) -> None:
    """Upgrade every node to --to, one at a time (drain, stop, start on the new version,
    wait until UP/NORMAL); the cluster runs two versions in between."""
    from pydantic import ValidationError

    from casslab.cluster import attach
    from casslab.errors import ConfigError
    from casslab.faults import actions
    from casslab.faults.kinds.upgrade.upgrade_operation import upgrade as rolling
    from casslab.faults.model import Fault
    from casslab.faults.operation import Stopwatch

    try:
        fault = Fault.model_validate({"at": 0, "kind": "upgrade", "target": "all", "to": to})
    except ValidationError as error:
        said = "; ".join(str(e["msg"]).removeprefix("Value error, ") for e in error.errors())
        raise ConfigError(f"upgrade --to {to}: {said}") from None
    cluster = attach(name)
    actions.check(cluster, fault)  # before any node stops: the JDK, an attached cluster
    watch = Stopwatch()
    with console.status(f"upgrading {cluster.name!r} to {to}…"):
        rolling(cluster, to, watch)
    for step in watch.steps:
        console.print(f"node {step.node}: {step.step} {step.duration_s:.1f} s", highlight=False)
    console.print(f"{cluster.name!r} runs Cassandra {cluster.state.cassandra_version}")


def register(app: typer.Typer) -> None:
    app.command("upgrade")(upgrade)
