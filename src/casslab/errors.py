"""The one exception tree of casslab.

Every error a user can cause or meet derives from :class:`CasslabError`. A message names
the operation, the offending value and the fix; the CLI prints ``Error: <message>`` and
exits non-zero. Library code raises these, never prints.
"""

from __future__ import annotations


class CasslabError(Exception):
    """Base of every casslab error. ``str(error)`` is the user-facing message."""


class SetupError(CasslabError):
    """The machine lacks something casslab needs (JDK, Maven, a Cassandra distribution)."""


class ConfigError(CasslabError):
    """Bad user input in configuration: a cassandra.yaml key or value, a cluster option."""


class ClusterError(CasslabError):
    """A cluster operation failed: a node would not start, a port is busy, state is broken."""


class WaitTimeoutError(ClusterError):
    """A wait hit its deadline. The message says what, how long, the limit and where to look."""


class WorkloadSyntaxError(CasslabError):
    """A cassandra-stress command, YCSB property file or workload spec is malformed."""


class EngineError(CasslabError):
    """The load engine could not be built, started, or reported an error."""


class MetricsError(CasslabError):
    """A metrics source or sink failed in a way the sampler cannot record as a gap."""


class ExperimentError(CasslabError):
    """An experiment file is invalid or a run directory is inconsistent."""


class AnalysisError(CasslabError):
    """Statistics were asked of data that cannot give them."""


class ReportError(CasslabError):
    """A report could not be rendered from a results directory."""
