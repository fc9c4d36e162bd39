"""The emulated WAN of a cluster with a topology: one link per pair of datacenters, each a
pair of isolated taps (one on each site's bridge) joined by a ``wirefilter`` pipeline that
the cluster's link keeper runs and restarts (:mod:`casslab.net.keeper`).

The keeper's files (the links' desired settings, their sockets, the pipelines' process
groups) live in ``/run/casslab/net/<cluster id>``, beside the owner files and gone at a
reboot as the processes are: a crashed casslab's links are found and stopped even after
its cluster directory was deleted.
"""

from __future__ import annotations

import contextlib
import json
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from casslab.cluster.isolated import network
from casslab.cluster.isolated.isolated_state import Bridge
from casslab.errors import ClusterError, ConfigError
from casslab.net import keeper
from casslab.net.keeper import KeeperPlan, LinkPlan
from casslab.net.links import Link

NET_ROOT = Path("/run/casslab/net")
REQUIRED_TOOLS = {"wirefilter": "vde2", "dpipe": "vde2", "vde_plug": "vde2"}  # the links' programs


def net_dir(cluster_id: str) -> Path:
    return NET_ROOT / cluster_id


def plan(cluster_id: str, sites: Sequence[Bridge], links: Sequence[Link]) -> KeeperPlan:
    """Each link's taps: on the bridge of its first datacenter and of its second."""
    index = {bridge.datacenter: number for number, bridge in enumerate(sites, start=1)}
    out: list[LinkPlan] = []
    for link in links:
        first, second = index.get(link.sites[0]), index.get(link.sites[1])
        if first is None or second is None:
            raise ConfigError(
                f"link {'-'.join(link.sites)}: not datacenters of this cluster "
                f"({', '.join(str(b.datacenter) for b in sites)})"
            )
        out.append(
            LinkPlan(
                link=link,
                tap_a=network.tap_name(cluster_id, first, second),
                tap_b=network.tap_name(cluster_id, second, first),
            )
        )
    return KeeperPlan(links=tuple(out))


def create(cluster_id: str, sites: Sequence[Bridge], links: Sequence[Link]) -> None:
    """The taps of every link on their sites' bridges, and the keeper running the links
    with their settings applied (read back from each wirefilter; the preflight checked
    that VDE is installed)."""
    keeper_plan = plan(cluster_id, sites, links)
    by_name = {bridge.datacenter: bridge for bridge in sites}
    for link_plan in keeper_plan.links:
        network.create_tap(link_plan.tap_a, by_name[link_plan.link.sites[0]])
        network.create_tap(link_plan.tap_b, by_name[link_plan.link.sites[1]])
    directory = net_dir(cluster_id)
    directory.mkdir(parents=True, exist_ok=True)
    directory.chmod(0o700)
    keeper.write_plan(directory, keeper_plan)
    pid, started = keeper.start(directory)
    (directory / "keeper.json").write_text(json.dumps({"pid": pid, "start_time": started}) + "\n")


def remove(cluster_id: str) -> None:
    """Stop the keeper of ``cluster_id`` and every link pipeline it ran (also those of a
    keeper that was killed), and delete its files. The taps go with the network."""
    directory = net_dir(cluster_id)
    if not directory.is_dir():
        return
    pid: int | None = None
    started: float | None = None
    with contextlib.suppress(OSError, ValueError, KeyError, TypeError):
        record = json.loads((directory / "keeper.json").read_text())
        pid, started = int(record["pid"]), float(record["start_time"])
    keeper.stop(directory, pid, started)
    shutil.rmtree(directory, ignore_errors=True)


@dataclass(frozen=True)
class KeptLinks:
    """The links of the cluster ``cluster_id``, as its capability to have them cut."""

    cluster_id: str

    def keeper_dir(self) -> Path:
        return require(self.cluster_id)


def require(cluster_id: str) -> Path:
    """The running links' directory, or a :class:`ClusterError` saying why there is none."""
    directory = net_dir(cluster_id)
    if not (directory / "links.json").is_file():
        raise ClusterError(
            "this cluster has no running links between datacenters (it is stopped, or was "
            "made without --topology); `casslab up` starts them"
        )
    return directory
