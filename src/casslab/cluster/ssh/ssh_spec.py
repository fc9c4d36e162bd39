"""The ssh backend's own field of a cluster spec: the inventory of hosts its nodes run on
(one node per host). Pure."""

from __future__ import annotations

from casslab.record import Record


class InventoryField(Record):
    """Nodes on the hosts of an inventory file (``casslab up --hosts hosts.yaml``)."""

    hosts: str | None = None  # an inventory file: the ssh backend, one node per host
