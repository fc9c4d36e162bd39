"""The slow-disk fault: a node's cgroup's block I/O throttled, then lifted."""
