"""The replace operation: a dead node is replaced by a new one that takes its tokens."""
