"""The ``local`` backend: Cassandra JVMs on 127.0.0.n of this machine."""

from casslab.cluster.local.cluster import LocalCluster
from casslab.cluster.local.launch import leftover_pids, stop_leftovers

__all__ = ["LocalCluster", "leftover_pids", "stop_leftovers"]
