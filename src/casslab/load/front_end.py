"""The load front-end seam: what every front end (cassandra-stress, YCSB, ...) gives.

A front end is one folder of :mod:`casslab.load` that reads its own command syntax, builds
the engine's :class:`~casslab.engine_contract.workload_spec.WorkloadSpec`, words engine
failures in its own terms and renders its console output; it is registered by name in
:mod:`casslab.load.front_ends`. The experiment file, its ``discover:`` step, capacity's
search and the CLI look a front end up there by the first word of a command and talk to
it through :class:`FrontEnd`; none of them names a front end's own modules.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

from casslab.engine_contract.workload_spec import Connection, OpenLoop, OpKind, WorkloadSpec
from casslab.load.engine import Wording
from casslab.record import Record

OPEN_LOOP_IN_FLIGHT: int = OpenLoop(rate_per_s=1.0).max_in_flight  # the engine default
READ_KINDS = (
    OpKind.READ,
    OpKind.SCAN,
    OpKind.COUNTER_READ,
    OpKind.READ_MODIFY_WRITE,
    OpKind.TOKEN_RANGE,
)


class ParsedLoad(Protocol):
    """One command of a front end, parsed (the files it names read relative to the folder
    it was parsed for)."""

    @property
    def password_env(self) -> str | None:
        """The environment variable the command reads its password from, if any."""
        ...

    def contact_points(self, default: Sequence[str]) -> list[str]:
        """The nodes the command names (``host:port``), else ``default``."""
        ...

    def to_spec(self, connection: Connection, *, seed: int = 0, data_seed: int = 0) -> WorkloadSpec:
        """The engine spec: ``seed`` draws the operation sequence, ``data_seed`` the values
        written and validated."""
        ...

    def file_problem(self) -> str | None:
        """Why a file the command names cannot be used (missing, malformed), or None."""
        ...


class SearchLoad(Record):
    """The workload of a capacity search (``capacity find``, an experiment's ``discover:``):
    its base spec (the search replaces the rate and the stop per run), the most operations
    in flight of the open loop and the bounds of the closed loop's thread ramp."""

    front_end: str  # the name the front end is registered by
    display: str  # the command as typed, passwords masked
    spec: WorkloadSpec
    max_in_flight: int
    ramp_min_threads: int
    ramp_max_threads: int

    @property
    def wording(self) -> Wording:
        """How engine failures are worded for this command's users (its files are kept)."""
        from casslab.load.front_ends import front_end

        return front_end(self.front_end).wording(files_kept=True)

    @property
    def reads(self) -> bool:
        """Whether the workload reads rows some earlier load must have written."""
        return any(op.kind in READ_KINDS for op in self.spec.operations)


class FrontEnd(Protocol):
    """A load front end (see the module docstring)."""

    @property
    def name(self) -> str:
        """The word that selects it at the head of a command (``ycsb run ...``)."""
        ...

    @property
    def preload_example(self) -> str:
        """A command that loads rows for reads, for messages (``write -pop seq=1..N``)."""
        ...

    def parse(self, command: str | Sequence[str], *, base_dir: Path | None = None) -> ParsedLoad:
        """A command line (its selecting name first or not); files it names are read
        relative to ``base_dir`` (default: the working directory). Raises
        :class:`~casslab.errors.WorkloadSyntaxError` in the front end's words."""
        ...

    def compose(self, workload: str, measure: str, threads: int | None, rate: float | None) -> str:
        """An experiment's measured command: ``workload``, then the ``measure`` options it
        does not set itself, then the ``threads`` / ``rate`` levels, which override both.
        Raises ValueError when a command cannot be split or has no command word."""
        ...

    def slug(self, command: str) -> str:
        """A short readable label of a command, for cell ids (no password in it)."""
        ...

    def wording(self, *, files_kept: bool) -> Wording:
        """How engine failures are told to this front end's users."""
        ...

    def search_load(
        self,
        words: Sequence[str],
        *,
        contact_points: Sequence[str],
        closed_loop: bool,
        seed: int,
        data_seed: int,
        base_dir: Path,
    ) -> SearchLoad:
        """``words`` (without the selecting name) as a capacity search's workload, against
        the nodes it names or else ``contact_points``; refuses what the search sets itself
        (the rate, how long a run lasts, the files it writes)."""
        ...
