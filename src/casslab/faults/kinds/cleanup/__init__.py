"""The cleanup operation: ``nodetool cleanup`` on one node."""
