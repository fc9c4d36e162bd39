"""The stop fault: ``nodetool drain`` and SIGTERM, the node started again after ``for``."""
