"""What a backend can do beyond the common part of the :class:`~casslab.cluster.backend.
Cluster` protocol, asked by name instead of guessed from its type.

Each backend's ``capabilities()`` gives the capabilities it has and, for each it lacks, its
own reason (a phrase that follows the cluster's name). Callers (faults, the network
commands, the metrics) ask through the functions here, the one place that refuses an
unsupported capability: ``cluster 'x' <the backend's reason>``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from casslab.errors import ConfigError

if TYPE_CHECKING:
    from casslab.cluster.backend import Cluster


class Capability(StrEnum):
    """A capability some backends have."""

    CUT_LINKS = "links between datacenters that can be cut"


NO_LINKS = (
    "has no datacenters linked by casslab; create one with --topology (a partition cuts a "
    "topology's links)"
)


class CuttableLinks(Protocol):
    """The emulated links between a cluster's datacenters (:mod:`casslab.net.cuts` cuts
    and heals them through their keeper)."""

    def keeper_dir(self) -> Path:
        """Where the keeper of the running links keeps them; a :class:`ClusterError` saying
        why when they do not run."""
        ...


@dataclass(frozen=True)
class Capabilities:
    """What one cluster can do; ``missing`` is the backend's reason for each it cannot."""

    links: CuttableLinks | None = None
    missing: Mapping[Capability, str] = field(default_factory=dict)


def refusal(cluster: Cluster, capability: Capability) -> ConfigError:
    """The error for ``capability`` that ``cluster`` lacks, in its backend's words."""
    reason = cluster.capabilities().missing.get(capability)
    if reason is None:
        reason = f"cannot give {capability.value} (its backend has no such capability)"
    return ConfigError(f"cluster {cluster.name!r} {reason}")


def links_of(cluster: Cluster) -> CuttableLinks:
    """``cluster``'s cuttable links, or the refusal."""
    links = cluster.capabilities().links
    if links is None:
        raise refusal(cluster, Capability.CUT_LINKS)
    return links
