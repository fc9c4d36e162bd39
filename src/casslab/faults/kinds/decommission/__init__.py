"""The decommission operation: a node streams its data away, leaves the ring and stops."""
