"""casslab: a performance lab for Apache Cassandra."""

__version__ = "0.1.0"
