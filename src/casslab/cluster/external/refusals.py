"""What an external cluster refuses, and why: one message per operation casslab does not
own on a cluster it did not start (pure)."""

from __future__ import annotations

from casslab.errors import ClusterError

NOT_OURS = (
    "was attached, not started by casslab: its nodes take no faults (casslab never stops "
    "what it does not own); remove faults: or run on a cluster casslab started"
)
"""Why its nodes' processes and clocks are not casslab's to touch (a phrase after its name)."""

# operation -> (what casslab would do, what to do instead); {name} is the cluster's name
_REFUSED: dict[str, tuple[str, str]] = {
    "start": (
        "start its nodes",
        "start them where the cluster is run (its operator, e.g. K8ssandra or cass-operator)",
    ),
    "up": (
        "start its nodes",
        "it is attached already: `casslab status --name {name}` shows it, `casslab down "
        "--name {name}` forgets it (its nodes untouched) and frees the name",
    ),
    "create": (
        "create it",
        "`casslab attach --contact-points HOST[,HOST] --name {name}` attaches a running "
        "cluster; `casslab up --name OTHER` starts one of casslab's own",
    ),
    "restart": (
        "restart its nodes or change their cassandra.yaml",
        "change settings where the cluster is run (e.g. the CassandraDatacenter resource "
        "of cass-operator) and restart it there",
    ),
    "stop": (
        "stop its nodes",
        "`casslab down --name {name}` forgets it without touching its nodes",
    ),
    "wipe": (
        "wipe its nodes' data",
        "experiments on it use `reset: truncate` (the workload's own tables only)",
    ),
    "drop": (
        "drop its keyspaces",
        "`casslab reset --truncate --keyspace KS --name {name}` truncates the workload's "
        "own tables",
    ),
    "truncate-all": (
        "truncate every user keyspace",
        "name the workload's own: `casslab reset --truncate --keyspace KS --name {name}` "
        "(or --table KS.TABLE)",
    ),
    "nodetool": (
        "run nodetool on its nodes (it has no JMX access to them)",
        "run nodetool where the nodes run (e.g. `kubectl exec POD -- nodetool ...`)",
    ),
    "capture": (
        "snapshot its data files (they are on other hosts)",
        "preload each trial instead, or use a cluster casslab started",
    ),
    "restore": (
        "load data files into it (they are on other hosts)",
        "preload each trial instead, or use a cluster casslab started",
    ),
}


def refusal(operation: str, name: str) -> ClusterError:
    """The error for ``operation`` on external cluster ``name``: what was refused, why,
    and what to do instead."""
    what, instead = _REFUSED[operation]
    return ClusterError(
        f"{operation.removesuffix('-all')} refused: cluster {name!r} is external (attached "
        f"with `casslab attach`, not started by casslab), so casslab does not {what}; "
        + instead.format(name=name)
    )
