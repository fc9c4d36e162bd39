"""One load session: the one place load engines are spawned, streamed, merged, placed and
stopped, for a command (``casslab stress``, ``ycsb``, ``capacity find``) or a whole run
(``casslab run``, ``tune``).

A :class:`LoadSession` runs one engine (:meth:`~LoadSession.run` to its end,
:meth:`~LoadSession.stream` record by record; leaving the stream stops the engine's process
group) or several load clients (:meth:`~LoadSession.run_clients`: the workload split into
disjoint shares, the clients at once on this machine or on the ``clients:`` hosts of an
inventory, their records and HDR logs merged exactly). With ``engine_cpus`` every engine it
starts on this machine runs in one cgroup of its own pinned to those CPUs
(:func:`casslab.host.engine_cgroup.engine_cgroup`), made at the first engine and removed
when the session closes (an engine still in it is killed by PID). :meth:`~LoadSession.check`
asks the engine's ``--check`` about a spec once per session, however often it is asked.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Generator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Self

from casslab.engine_contract.engine_records import EngineRecord, IntervalRecord
from casslab.engine_contract.workload_spec import WorkloadSpec
from casslab.load import engine
from casslab.load.clients import Launcher, LocalLauncher, run_clients
from casslab.load.engine import EngineResult, Wording
from casslab.load.merge import Merged
from casslab.remote.inventory import Inventory

Preexec = Callable[[], None]


@dataclass(frozen=True)
class LoadClients:
    """How many engines share each load, and where: the ``clients:`` hosts of
    ``inventory``, or this machine when it is None."""

    n: int
    inventory: Inventory | None = None

    @property
    def where(self) -> str:
        """For messages: ``2 load clients on this machine`` / ``the 2 clients: hosts of ...``."""
        if self.inventory is None:
            return f"{self.n} load clients on this machine"
        return f"the {self.n} clients: hosts of {self.inventory.path}"

    def launcher(
        self,
        workdir: Path,
        *,
        timeout_s: float | None,
        wording: Wording,
        preexec: Preexec | None,
    ) -> Launcher:
        """A launcher for one load's clients, writing under ``workdir``."""
        if self.inventory is None:
            return LocalLauncher(workdir, timeout_s=timeout_s, wording=wording, preexec=preexec)
        from casslab.load.remote_clients import RemoteLauncher

        return RemoteLauncher(self.inventory, workdir, timeout_s=timeout_s, wording=wording)


class LoadSession:
    """The engines of one command or run (see the module docstring); a context manager."""

    def __init__(self, engine_cpus: str | None = None) -> None:
        self.engine_cpus = engine_cpus
        self._open = ExitStack()
        self._preexec: Preexec | None = None
        self._checked: set[str] = set()

    def place(self) -> Preexec | None:
        """The ``preexec_fn`` that puts an engine in the session's cgroup (made now if it
        is not yet), or None without ``engine_cpus``;
        :class:`~casslab.errors.ConfigError` when it cannot be made."""
        if self.engine_cpus is None:
            return None
        if self._preexec is None:
            from casslab.host.engine_cgroup import engine_cgroup

            self._preexec = self._open.enter_context(engine_cgroup(self.engine_cpus))
        return self._preexec

    def check(self, spec: WorkloadSpec, workdir: Path) -> bool:
        """The engine's ``--check`` of ``spec`` (:class:`~casslab.errors.SpecRejectedError`
        with its reason), unless this session checked the same spec already; whether it
        ran."""
        key = hashlib.sha256(spec.model_dump_json().encode()).hexdigest()
        if key in self._checked:
            return False
        engine.check(spec, workdir)
        self._checked.add(key)
        return True

    def stream(
        self,
        spec: WorkloadSpec,
        workdir: Path,
        *,
        timeout_s: float | None = None,
        wording: Wording = Wording(),
        on_start: Callable[[int], None] | None = None,
    ) -> Generator[EngineRecord, None, None]:
        """One engine's records as they come (:func:`casslab.load.engine.stream`); closing
        the generator stops the engine."""
        return engine.stream(
            spec,
            workdir,
            timeout_s=timeout_s,
            wording=wording,
            on_start=on_start,
            preexec=self.place(),
        )

    def run(
        self,
        spec: WorkloadSpec,
        workdir: Path,
        *,
        on_interval: Callable[[IntervalRecord], None] | None = None,
        timeout_s: float | None = None,
        wording: Wording = Wording(),
        on_start: Callable[[int], None] | None = None,
    ) -> EngineResult:
        """One engine run to its end (:func:`casslab.load.engine.run`); ``on_start`` gets
        the engine's PID."""
        return engine.run(
            spec,
            workdir,
            on_interval=on_interval,
            timeout_s=timeout_s,
            wording=wording,
            preexec=self.place(),
            on_start=on_start,
        )

    def run_clients(
        self,
        spec: WorkloadSpec,
        clients: LoadClients,
        workdir: Path,
        *,
        timeout_s: float | None = None,
        wording: Wording = Wording(),
    ) -> Merged:
        """``spec`` from ``clients`` (each one's output under ``workdir``), merged
        (:func:`casslab.load.clients.run_clients`); engines on this machine are placed in
        the session's cgroup, those on client hosts are not."""
        preexec = self.place() if clients.inventory is None else None
        launcher = clients.launcher(workdir, timeout_s=timeout_s, wording=wording, preexec=preexec)
        return run_clients(spec, clients.n, launcher)

    def close(self) -> None:
        """Remove the session's cgroup, if made (a later engine makes a new one)."""
        self._preexec = None
        self._open.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
