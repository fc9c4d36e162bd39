"""The repair operation: ``nodetool repair`` on one node, full or incremental."""
