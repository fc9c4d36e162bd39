"""The kill fault: SIGKILL to a node's process group, started again after ``for``."""
