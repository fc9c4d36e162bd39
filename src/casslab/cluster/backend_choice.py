"""Which backend a cluster spec asks for, read from the raw mapping before any field is
validated: ``casslab up --cpus 2``, ``--topology dc1:2,dc2:1`` and ``--hosts hosts.yaml``
name no backend; a limit, a network namespace, links or a subnet ask for the isolated one,
an inventory for the ssh one, and contradictions are refused here, naming the fields and
the fix. Pure.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from casslab.cluster.cluster_spec import BackendKind
from casslab.cluster.isolated.isolated_spec import LIMIT_FIELDS


def choose_backend(data: Mapping[str, Any]) -> BackendKind:
    """The backend a raw spec asks for: ``backend`` when it names one and nothing else asks
    for another; an inventory (``hosts``): ssh; a topology, network namespaces, a limit,
    links or a subnet: isolated (``backend: local`` with them becomes isolated).
    Contradictions raise :class:`ValueError` naming the fields and the fix."""
    isolation = str(data.get("isolation") or "process")
    if data.get("topology") is not None:
        isolation = str(data.get("isolation") or "netns")
        if isolation != "netns":
            raise ValueError(
                f"isolation {isolation}: datacenters and links need nodes in network "
                "namespaces; use --isolation netns (the default with --topology)"
            )
    backend = data.get("backend")
    if data.get("hosts") is not None:
        _check_inventory(data, backend, isolation)
        return BackendKind.SSH
    network = bool(data.get("links")) or data.get("subnet") is not None
    limited = any(data.get(f) is not None for f in LIMIT_FIELDS)
    isolated = isolation != "process" or limited or network
    if isolated:
        if backend is not None and str(backend) not in ("isolated", "local"):
            raise ValueError(
                f"backend {backend}: isolation and node limits need the isolated backend"
            )
        return BackendKind.ISOLATED
    if backend is None:
        return BackendKind.LOCAL
    try:
        return BackendKind(str(backend))
    except ValueError:
        kinds = ", ".join(k.value for k in BackendKind)
        raise ValueError(f"backend {backend!r}: give one of {kinds}") from None


def _check_inventory(data: Mapping[str, Any], backend: Any, isolation: str) -> None:
    """An inventory file asks for the ssh backend; isolation and limits are refused."""
    if backend is not None and str(backend) != "ssh":
        raise ValueError(f"backend {backend}: an inventory of hosts needs the ssh backend")
    asked = [f for f in LIMIT_FIELDS if data.get(f) is not None]
    if isolation != "process":
        asked.append("isolation" if data.get("topology") is None else "topology")
    if asked:
        raise ValueError(
            f"{', '.join(asked)}: not for nodes on hosts of an inventory (each host is a "
            "node; datacenters and racks come from the inventory's dc and rack)"
        )
    if data.get("java_home") is not None:
        raise ValueError(
            f"java_home {data['java_home']}: nodes on hosts of an inventory run the JDK of "
            "their host's java_home in the inventory; give it there"
        )
