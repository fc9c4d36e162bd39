"""casslab.load."""
