"""The clock-jump fault: a node's wall clock stepped by ``offset``, and back after ``for``."""
