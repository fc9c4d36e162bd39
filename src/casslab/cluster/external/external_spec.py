"""The external backend's variant of a cluster spec (``casslab attach``): the common fields
only; casslab reaches the nodes over CQL and starts none of them. Pure."""

from __future__ import annotations

from typing import Literal

from casslab.cluster.cluster_spec import BackendKind, CommonSpec


class ExternalSpec(CommonSpec):
    """A cluster casslab did not start: its name and what the common fields say of it."""

    backend: Literal[BackendKind.EXTERNAL] = BackendKind.EXTERNAL
