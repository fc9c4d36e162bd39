"""casslab.report."""
