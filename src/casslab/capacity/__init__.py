"""Capacity: the highest rate a cluster takes under a latency SLO (``find``), and the
fewest machines' power that serves tenants' throughput (``plan``, seed 003's model)."""
