"""The ssh backend: Cassandra nodes on real hosts reached over SSH (``casslab up --hosts
hosts.yaml``), one node per inventory host."""
