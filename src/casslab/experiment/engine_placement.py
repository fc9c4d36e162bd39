"""Where a run's load engines run: anywhere (the default), or with ``--engine-cpus`` in
one cgroup of their own pinned to those CPUs (:func:`casslab.host.engine_cgroup.engine_cgroup`) for
every engine run of every trial: preload, JVM warm-up rehearsal and measure alike."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import ExitStack

from casslab.host.engine_cgroup import engine_cgroup


class EnginePlacement:
    """The engine cgroup of one run: made at the first :meth:`preexec` that asks for one,
    removed at :meth:`close` (an engine still in it is killed by PID)."""

    def __init__(self) -> None:
        self._open = ExitStack()
        self._cpus: str | None = None  # of the cgroup open, if any
        self._preexec: Callable[[], None] | None = None

    def preexec(self, engine_cpus: str | None) -> Callable[[], None] | None:
        """The ``preexec_fn`` that puts an engine in the cgroup of ``engine_cpus``; None
        without. :class:`~casslab.errors.ConfigError` when it cannot be made."""
        if engine_cpus is None:
            return None
        if self._preexec is None or self._cpus != engine_cpus:
            self.close()
            self._preexec = self._open.enter_context(engine_cgroup(engine_cpus))
            self._cpus = engine_cpus
        return self._preexec

    def close(self) -> None:
        """Remove the cgroup, if made; a later :meth:`preexec` makes a new one."""
        self._preexec, self._cpus = None, None
        self._open.close()
