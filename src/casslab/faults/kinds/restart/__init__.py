"""The restart operation: drain, stop and start one node, until it is UP/NORMAL again."""
