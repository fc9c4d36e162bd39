"""The ssh backend's own field of a cluster spec, the inventory of hosts its nodes run on
(one node per host), and its variant of a cluster spec (:class:`SshSpec`). Pure."""

from __future__ import annotations

from typing import Literal

from casslab.cluster.cluster_spec import BackendKind, CommonSpec
from casslab.record import Record


class InventoryField(Record):
    """Nodes on the hosts of an inventory file (``casslab up --hosts hosts.yaml``)."""

    hosts: str | None = None  # an inventory file: the ssh backend, one node per host


class SshSpec(CommonSpec, InventoryField):
    """A cluster on the hosts of an inventory, one node per host (their JDK, datacenters and
    racks come from the inventory, not from the spec)."""

    backend: Literal[BackendKind.SSH] = BackendKind.SSH
