"""casslab.experiment."""
