"""The upgrade operation: every node moved to another Cassandra version, one at a time."""
