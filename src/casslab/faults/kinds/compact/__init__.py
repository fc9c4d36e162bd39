"""The compact operation: ``nodetool compact`` on one node."""
