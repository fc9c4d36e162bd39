"""The pause fault: SIGSTOP to a node's JVM, SIGCONT after ``for``."""
