"""The local backend's variant of a cluster spec: the common fields only (plain JVMs on
127.0.0.n of this machine, no limits, no namespaces). Pure."""

from __future__ import annotations

from typing import Literal

from casslab.cluster.cluster_spec import BackendKind, CommonSpec


class LocalSpec(CommonSpec):
    """A cluster of plain processes on this machine's loopback addresses."""

    backend: Literal[BackendKind.LOCAL] = BackendKind.LOCAL
