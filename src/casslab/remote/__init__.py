"""Hosts reached over SSH: the inventory file, one connection per host, and a test bed of
namespaced hosts running real sshd servers."""
