"""The one exception tree of casslab.

Every error a user can cause or meet derives from :class:`CasslabError`. A message names
the operation, the offending value and the fix; the CLI prints ``Error: <message>`` and
exits 2 for a :class:`UsageError`, 1 for the others. Library code raises these, never prints.
"""

from __future__ import annotations

from collections.abc import Sequence


class CasslabError(Exception):
    """Base of every casslab error. ``str(error)`` is the user-facing message."""


class SetupError(CasslabError):
    """The machine lacks something casslab needs (JDK, Maven, a Cassandra distribution)."""


class ConfigError(CasslabError):
    """Bad user input in configuration: a cassandra.yaml key or value, a cluster option."""


class UsageError(ConfigError):
    """A command-line option casslab checks itself is out of range, malformed, missing or
    combined with one it excludes (``--time-limit 0``, ``--nodes 99``, ``--racks`` without
    ``--topology``): the CLI exits 2, as for the options its framework cannot parse."""


class ClusterError(CasslabError):
    """A cluster operation failed: a node would not start, a port is busy, state is broken."""


class WaitTimeoutError(ClusterError):
    """A wait hit its deadline. The message says what, how long, the limit and where to look."""


class RemoteError(CasslabError):
    """A remote host (reached over SSH) could not be used: the base of the family below."""


class HostUnreachableError(RemoteError):
    """No SSH connection could be opened to a host (refused, timed out, no route)."""


class AuthenticationRefusedError(RemoteError):
    """The host refused the inventory's user and key."""


class UnknownHostKeyError(RemoteError):
    """The host's key is not in known_hosts and trust on first use is off."""


class ChangedHostKeyError(RemoteError):
    """The host's key differs from the one known_hosts records for it."""


class RemoteCommandError(RemoteError):
    """A command on a remote host exited non-zero or ran past its deadline."""

    def __init__(self, message: str, exit_code: int | None = None, stderr: str = "") -> None:
        super().__init__(message)
        self.exit_code = exit_code
        self.stderr = stderr


class WorkloadSyntaxError(CasslabError):
    """A cassandra-stress command, YCSB property file or workload spec is malformed."""


class DatasetError(WorkloadSyntaxError):
    """A vector dataset (fvecs/ivecs, ann-benchmarks HDF5) is unreadable, of the wrong shape,
    or does not fit the workload (dimension, k, row count)."""


class EngineError(CasslabError):
    """The load engine could not be built, started, or reported an error."""


class SpecRejectedError(EngineError):
    """The load engine's ``--check`` rejects a workload spec; ``reason`` is its own word."""

    def __init__(self, message: str, reason: str) -> None:
        super().__init__(message)
        self.reason = reason


class MetricsError(CasslabError):
    """A metrics source or sink failed in a way the sampler cannot record as a gap."""


class ExperimentError(CasslabError):
    """An experiment file is invalid or a run directory is inconsistent."""


class DocumentProblemsError(CasslabError):
    """A file's document has problems (YAML syntax, a duplicate key, a field out of its
    range); ``problems`` lists each as ``<where>: <what>``, and the message names the file
    as ``<subject> <source>``. Each kind of file says its own subject."""

    subject = "file"

    def __init__(self, source: str, problems: Sequence[str]) -> None:
        self.source = source
        self.problems = list(problems)
        super().__init__(problems_message(f"{self.subject} {source}", self.problems))


class ExperimentValidationError(DocumentProblemsError, ExperimentError):
    """An experiment (or tune) file has problems; ``problems`` lists each as
    ``<path>: <message>``."""

    subject = "experiment"


class AnalysisError(CasslabError):
    """Statistics were asked of data that cannot give them."""


class ReportError(CasslabError):
    """A report could not be rendered from a results directory."""


class StoreError(CasslabError):
    """A run directory's file is missing, unreadable or not the record it should be.

    ``detail`` is the problem alone (``not valid JSON (...)``), for callers that word
    their own message around it (the runner's "its trial will be run again").
    """

    def __init__(self, message: str, detail: str = "") -> None:
        super().__init__(message)
        self.detail = detail or message


class NewerSchemaError(StoreError):
    """A file was written by a newer casslab: its ``schema_version`` is above the one this
    casslab reads. Never loaded silently; the fix is to upgrade casslab."""


def problems_message(subject: str, problems: Sequence[str]) -> str:
    """One message for a file with several problems, each on its own line:
    ``experiment x.yaml: 2 problems; fix each and run again:`` then the problems."""
    count = len(problems)
    noun = "problem" if count == 1 else "problems"
    lines = "\n".join(f"  {problem}" for problem in problems)
    return f"{subject}: {count} {noun}; fix each and run again:\n{lines}"
