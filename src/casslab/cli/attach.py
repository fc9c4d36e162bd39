"""``casslab attach``: a running cluster casslab did not start becomes the current one (the
external backend: load, CQL-visible metrics and reports; never a restart or a wipe).
Parse, call :func:`casslab.cluster.attach_external`, render; also the ``status`` table of
such a cluster."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.table import Table

from casslab.load.limits import port_problem

if TYPE_CHECKING:
    from casslab.cluster import Cluster, NodeView

console = Console()


def _port(value: int) -> int:
    """``--port``: a usage error (exit 2) in casslab's words when it is not a TCP port."""
    problem = port_problem(value)
    if problem is not None:
        raise typer.BadParameter(problem)
    return value


def attach(
    contact_points: Annotated[
        list[str],
        typer.Option(
            "--contact-points",
            "-c",
            help="host[:port] of nodes to reach the cluster through, comma-separated or "
            "repeated, e.g. 10.0.0.11,10.0.0.12.",
        ),
    ],
    name: Annotated[str, typer.Option("--name", help="What casslab calls the cluster.")],
    dc: Annotated[
        str | None,
        typer.Option("--dc", help="The clients' local datacenter (load goes there first)."),
    ] = None,
    user: Annotated[
        str | None, typer.Option("--user", help="CQL user (with --password-env).")
    ] = None,
    password_env: Annotated[
        str | None,
        typer.Option(
            "--password-env",
            help="The environment variable holding the user's password; read at each use, "
            "never stored.",
        ),
    ] = None,
    tls_ca: Annotated[
        Path | None,
        typer.Option("--tls-ca", help="PEM CA that signs the nodes' certificates: use TLS."),
    ] = None,
    port: Annotated[
        int,
        typer.Option(
            "--port", callback=_port, help="CQL port of contact points given without one."
        ),
    ] = 9042,
) -> None:
    """Attach a running cluster casslab did not start (Kubernetes, a managed service) and
    make it the current one: stress, ycsb, metrics (CQL only) and cqlsh use it; casslab
    never restarts or wipes it, and `casslab down` only forgets it."""
    from casslab.cluster import attach_external

    with console.status("attaching…"):
        cluster = attach_external(
            name,
            contact_points,
            dc=dc,
            user=user,
            password_env=password_env,
            tls_ca=tls_ca,
            port=port,
        )
    per_dc: dict[str, int] = {}
    for node in cluster.nodes:
        per_dc[node.datacenter or "-"] = per_dc.get(node.datacenter or "-", 0) + 1
    shape = ", ".join(f"{d} ({n})" for d, n in sorted(per_dc.items()))
    external = cluster.external
    called = f", cluster_name {external.cluster_name!r}" if external.cluster_name else ""
    access = external.access.describe()
    local = f"; local datacenter {dc}" if dc else ""
    console.print(
        f"cluster [bold]{cluster.name}[/] attached (external): {len(cluster.nodes)} node(s) "
        f"in {shape}, Cassandra {cluster.state.cassandra_version}{called}; CQL at "
        f"{', '.join(cluster.contact_points)}; {access}{local}. casslab runs load and reads "
        f"CQL metrics; it never restarts or wipes it (`casslab down --name {cluster.name}` "
        "forgets it)."
    )


def status_table(cluster: Cluster, views: list[NodeView]) -> Table:
    """The ``status`` table of an external cluster: the ring as its nodes show it."""
    from casslab.cluster import external_of

    external = external_of(cluster.state)
    called = f", cluster_name {external.cluster_name}" if external.cluster_name else ""
    table = Table(
        "node",
        "address",
        "status",
        "dc",
        "rack",
        "host id",
        "version",
        title=f"cluster {cluster.name} (external{called}; Cassandra "
        f"{cluster.state.cassandra_version})",
    )
    colours = {"up": "green", "starting": "yellow", "down": "red"}
    for view in views:
        table.add_row(
            str(view.number),
            f"{view.address}:{view.native_port}",
            f"[{colours[view.status]}]{view.status}[/]",
            view.datacenter or "-",
            view.rack or "-",
            view.host_id or "-",
            view.release_version or "-",
        )
    if external is not None:
        table.caption = f"{external.access.describe()}; CQL metrics only, casslab owns no node"
    return table


def register(app: typer.Typer) -> None:
    """Add ``casslab attach`` to the casslab app."""
    app.command()(attach)
