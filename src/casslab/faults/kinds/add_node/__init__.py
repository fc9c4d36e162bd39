"""The add-node operation: a new node bootstraps into the ring while the load runs."""
