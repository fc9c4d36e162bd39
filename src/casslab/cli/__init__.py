"""casslab.cli."""
