"""The flush operation: ``nodetool flush`` on one node."""
