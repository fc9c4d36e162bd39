"""Run one workload from several load clients and merge their output exactly.

:func:`run_clients` splits the workload (:func:`casslab.load.shares.split`), runs its
schema statements once, then every client at once through a :class:`Launcher`, and
merges what they wrote (:func:`casslab.load.merge.merge_clients`). A launcher only runs
engines and hands back each one's records and HDR log text; it never merges, so a launcher
for client hosts (the engine binary and spec put on a host over SSH, the records streamed
back, the log read back) plugs in beside :class:`LocalLauncher` without a change to the
split or the merge.

:class:`LocalLauncher` runs the clients on this machine: each an engine in its own process
group, in ``<workdir>/client-<i>/`` (``spec.json``, ``engine.jsonl``, ``engine.stderr``
and, unless the spec names one, ``latency.hlog``), optionally placed by a ``preexec``
(the CLI's ``--engine-cpus`` cgroup, shared by all of them).
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from casslab import procgroup
from casslab.engine_contract.workload_spec import WorkloadSpec
from casslab.errors import AnalysisError, CasslabError, EngineError
from casslab.load import engine
from casslab.load.engine import EngineResult, Wording
from casslab.load.merge import ClientFailure, ClientOutput, Merged, merge_clients
from casslab.load.shares import client_name, split

HDR_LOG_FILE = "latency.hlog"
SCHEMA_CLIENT = "schema"
STDERR_TAIL_CHARS = 1500
JOIN_POLL_S = 0.2


@dataclass(frozen=True)
class ClientSpec:
    """One client to run: its name (``client-0``) and its share of the workload;
    ``measured`` is False for the schema run, whose HDR log nobody reads."""

    client: str
    spec: WorkloadSpec
    measured: bool = True


@dataclass(frozen=True)
class ClientRun:
    """What a launcher got from one client: its records and HDR log text, or why not."""

    client: str
    result: EngineResult | None = None
    hlog: str | None = None
    failure: ClientFailure | None = None


class Launcher(Protocol):
    """Runs load clients to their end, all at once, and hands back their output."""

    def launch(self, clients: Sequence[ClientSpec]) -> list[ClientRun]:
        """Run every client at once; one :class:`ClientRun` per client, in order. A client
        that fails (non-zero exit, fatal error, no summary, no HDR log) is a
        :class:`ClientRun` with its ``failure`` (the reason and its stderr tail), never an
        exception; each measured client's HDR log is the spec's ``output.hdr_log`` or,
        when it has none, a file the launcher chooses."""
        ...


def _tail(path: Path) -> str:
    try:
        return path.read_text(errors="replace")[-STDERR_TAIL_CHARS:].strip()
    except OSError:
        return ""


@dataclass
class LocalLauncher:
    """Engines on this machine, each in its own process group and ``workdir/<client>/``."""

    workdir: Path
    timeout_s: float | None = None
    wording: Wording = field(default_factory=Wording)
    preexec: Callable[[], None] | None = None

    def _run_one(self, item: ClientSpec, pids: dict[str, int]) -> ClientRun:
        work = self.workdir / item.client
        spec = item.spec
        if spec.output.hdr_log is None and item.measured:
            hdr = str(work / HDR_LOG_FILE)
            spec = spec.model_copy(
                update={"output": spec.output.model_copy(update={"hdr_log": hdr})}
            )
        hdr_path = Path(spec.output.hdr_log) if spec.output.hdr_log else None
        if hdr_path is not None:
            hdr_path.parent.mkdir(parents=True, exist_ok=True)

        def started(pid: int) -> None:
            pids[item.client] = pid

        try:
            result = engine.run(
                spec,
                work,
                timeout_s=self.timeout_s,
                wording=self.wording,
                preexec=self.preexec,
                on_start=started,
            )
        except CasslabError as error:
            failure = ClientFailure(
                client=item.client, reason=str(error), stderr_tail=_tail(work / engine.STDERR_FILE)
            )
            return ClientRun(client=item.client, failure=failure)
        if hdr_path is None:
            return ClientRun(client=item.client, result=result)
        try:
            text = hdr_path.read_text(encoding="utf-8")
        except OSError as error:
            failure = ClientFailure(
                client=item.client,
                reason=f"its HDR log {hdr_path} cannot be read ({error})",
                stderr_tail=_tail(work / engine.STDERR_FILE),
            )
            return ClientRun(client=item.client, result=result, failure=failure)
        return ClientRun(client=item.client, result=result, hlog=text)

    def launch(self, clients: Sequence[ClientSpec]) -> list[ClientRun]:
        runs: dict[str, ClientRun] = {}
        pids: dict[str, int] = {}
        done = {item.client: threading.Event() for item in clients}

        def work(item: ClientSpec) -> None:
            try:
                runs[item.client] = self._run_one(item, pids)
            finally:
                done[item.client].set()  # its engine is reaped by now

        for item in clients:
            threading.Thread(target=work, args=(item,), name=item.client, daemon=True).start()
        try:
            for event in done.values():
                while not event.wait(JOIN_POLL_S):
                    pass
        except BaseException:  # Ctrl-C or an error here: stop every engine, then re-raise
            # (events, not Thread.is_alive: a join cut by KeyboardInterrupt can mark a
            # running thread as stopped)
            for client, event in done.items():
                pid = pids.get(client)
                if pid is not None and not event.is_set():
                    procgroup.signal_group(pid, signal.SIGTERM)
            for event in done.values():
                event.wait(engine.KILL_GRACE_S + 5.0)
            raise
        return [runs[item.client] for item in clients]


def _output(run: ClientRun) -> ClientOutput | ClientFailure:
    if run.failure is not None:
        return run.failure
    if run.result is None or run.hlog is None:
        return ClientFailure(client=run.client, reason="it handed back no records or no HDR log")
    from casslab.engine_contract.hdr import parse_interval_log

    try:
        log = parse_interval_log(run.hlog)
    except AnalysisError as error:
        return ClientFailure(client=run.client, reason=f"its HDR log cannot be read: {error}")
    return ClientOutput(client=run.client, result=run.result, log=log)


def run_clients(spec: WorkloadSpec, n: int, launcher: Launcher) -> Merged:
    """Run ``spec`` from ``n`` clients through ``launcher`` and merge their output.

    The split is checked before anything starts (:func:`~casslab.load.shares.split` raises
    for a bad ``n``). The schema statements run once first; if they fail,
    :class:`~casslab.errors.EngineError` and no client starts. A failed client does not
    raise: it is in the result's ``failed`` list.
    """
    shares = split(spec, n)
    if shares.schema_run is not None:
        (schema,) = launcher.launch([ClientSpec(SCHEMA_CLIENT, shares.schema_run, measured=False)])
        if schema.failure is not None:
            tail = f"; stderr: {schema.failure.stderr_tail}" if schema.failure.stderr_tail else ""
            raise EngineError(
                f"the schema statements, run once before the {n} clients, failed: "
                f"{schema.failure.reason}{tail}"
            )
    runs = launcher.launch(
        [ClientSpec(client_name(i), share) for i, share in enumerate(shares.clients)]
    )
    outputs: list[ClientOutput] = []
    failed: list[ClientFailure] = []
    for run in runs:
        got = _output(run)
        if isinstance(got, ClientFailure):
            failed.append(got)
        else:
            outputs.append(got)
    return merge_clients(outputs, failed, interval_s=spec.output.interval_s)
