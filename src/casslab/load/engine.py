"""Spawn the Rust load engine and read its records.

The engine (``engine/``, binary ``casslab-engine``) reads a :class:`WorkloadSpec` as JSON
and writes one JSON line per record (:class:`IntervalRecord`, :class:`ErrorRecord`, a final
:class:`SummaryRecord`). :func:`stream` yields the records as they arrive and always kills
the engine's process group when the caller stops reading, fails, times out or is
interrupted; :func:`run` collects a whole run into an :class:`EngineResult`.
"""

from __future__ import annotations

import os
import signal
import subprocess
import threading
from collections.abc import Callable, Generator
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from pydantic import Field, TypeAdapter, ValidationError

from casslab import pids, procgroup
from casslab.engine_contract.engine_records import (
    EngineRecord,
    ErrorRecord,
    IntervalRecord,
    SummaryRecord,
)
from casslab.engine_contract.workload_spec import WorkloadSpec
from casslab.errors import EngineError, SpecRejectedError
from casslab.load import credentials, engine_finder
from casslab.record import Record

ENGINE_ENV = engine_finder.ENGINE_ENV
PARENT_PID_ENV = "CASSLAB_PARENT_PID"  # the engine exits when this process is gone
ENGINE_NAME = engine_finder.ENGINE_NAME
SPEC_FILE = "spec.json"
RECORDS_FILE = "engine.jsonl"
STDERR_FILE = "engine.stderr"
KILL_GRACE_S = 5.0  # SIGTERM, then SIGKILL after this long
STDERR_TAIL_CHARS = 2000

_RECORD_ADAPTER: TypeAdapter[EngineRecord] = TypeAdapter(EngineRecord)


class EngineResult(Record):
    """Everything one engine run reported."""

    intervals: list[IntervalRecord] = Field(default_factory=list)
    summary: SummaryRecord
    errors: list[ErrorRecord] = Field(default_factory=list)


@dataclass(frozen=True)
class Wording:
    """How engine failures are told to the user of one front end.

    The engine and this module name what to change in workload-spec terms
    (``connection.tls_ca_file``); a user of ``casslab stress`` typed ``-transport
    truststore=`` instead. ``terms`` pairs each spec phrase with the front end's own words.
    ``files_kept`` is False when ``workdir`` is a temporary directory deleted after the run:
    errors then carry what the engine said and cite no file in it.
    """

    files_kept: bool = True
    terms: tuple[tuple[str, str], ...] = ()

    def say(self, message: str) -> str:
        for spec_phrase, own in self.terms:
            message = message.replace(spec_phrase, own)
        return message


def repo_root() -> Path:
    """The checkout this module lives in (``<root>/src/casslab/load/engine.py``)."""
    return engine_finder.checkout_root()


def engine_binary() -> Path:
    """The engine executable (:func:`casslab.load.engine_finder.find`)."""
    return engine_finder.find()


def parse_record(line: str | bytes) -> EngineRecord:
    """One engine output line as a typed record."""
    try:
        return _RECORD_ADAPTER.validate_json(line)
    except ValidationError as err:
        text = line.decode(errors="replace") if isinstance(line, bytes) else line
        raise EngineError(
            f"the load engine wrote a line casslab cannot read: {text[:200]!r} ({err}); "
            "the engine and casslab versions differ: rebuild with `make engine`"
        ) from err


def end_phase(pid: int, start_time: float | None) -> bool:
    """Tell the engine ``pid`` (started at ``start_time``, :func:`casslab.pids.create_time`)
    to end its measured phase now and then finish as at the phase's normal end (SIGUSR1:
    the read-back of acknowledged writes and the summary still come); False when that
    process no longer runs."""
    if not pids.alive(pid, start_time):
        return False
    try:
        os.kill(pid, signal.SIGUSR1)
    except ProcessLookupError:
        return False
    return True


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    """Stop the engine's whole process group: SIGTERM, then SIGKILL after the grace time;
    the engine is reaped (``poll``/``wait``), so no zombie is left."""
    procgroup.stop_group(proc.pid, lambda: proc.poll() is None, grace_s=KILL_GRACE_S)
    proc.wait()


def _tail(path: Path) -> str:
    try:
        text = path.read_text(errors="replace")
    except OSError:
        return ""
    return text[-STDERR_TAIL_CHARS:].strip()


def stream(
    spec: WorkloadSpec,
    workdir: Path,
    *,
    timeout_s: float | None = None,
    wording: Wording = Wording(),
    on_start: Callable[[int], None] | None = None,
    preexec: Callable[[], None] | None = None,
) -> Generator[EngineRecord, None, None]:
    """Run the engine on ``spec`` and yield its records as they arrive; ``on_start`` gets
    the engine's PID as soon as it runs (for samplers of its CPU and memory); ``preexec``
    runs in the engine's process before the engine does (the caller's placement of it,
    e.g. into a cgroup of its own CPUs: this package knows nothing of cgroups).

    Closing the generator (or leaving a ``for`` loop over it early) kills the engine.

    Writes ``workdir/spec.json`` (the spec as sent, records forced to standard output; a
    password goes in the engine's environment, never in the file or its arguments),
    ``workdir/engine.jsonl`` (every line received) and ``workdir/engine.stderr``. A fatal
    :class:`ErrorRecord` is not yielded: it becomes the message of the :class:`EngineError`
    raised when the engine exits non-zero. After ``timeout_s`` the engine is killed and
    :class:`EngineError` raised. Error messages follow ``wording``.

    The engine gets this process's PID (``CASSLAB_PARENT_PID``) and exits by itself within
    a second when this process is gone, even after a SIGKILL that ran no clean-up.
    """
    binary = engine_binary()
    workdir.mkdir(parents=True, exist_ok=True)
    sent, secret_env = credentials.for_engine(
        spec.model_copy(update={"output": spec.output.model_copy(update={"jsonl": None})})
    )
    spec_path = workdir / SPEC_FILE
    spec_path.write_text(sent.model_dump_json(indent=2) + "\n")  # no password: see for_engine
    records_path = workdir / RECORDS_FILE
    stderr_path = workdir / STDERR_FILE

    timed_out = threading.Event()
    fatal: ErrorRecord | None = None
    with stderr_path.open("wb") as err_file, records_path.open("wb") as records:
        try:
            proc = subprocess.Popen(
                [str(binary), "--spec", str(spec_path)],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=err_file,
                start_new_session=True,
                env={**os.environ, **secret_env, PARENT_PID_ENV: str(os.getpid())},
                preexec_fn=preexec,
            )
        except subprocess.SubprocessError as error:  # what a failed preexec_fn raises
            raise EngineError(
                f"the load engine could not be started: its placement before it runs "
                f"failed ({error}); check the option that placed it (e.g. --engine-cpus)"
            ) from error
        if on_start is not None:
            on_start(proc.pid)
        timer: threading.Timer | None = None
        if timeout_s is not None:

            def expire() -> None:
                timed_out.set()
                _kill_group(proc)

            timer = threading.Timer(timeout_s, expire)
            timer.daemon = True
            timer.start()
        try:
            out: IO[bytes] | None = proc.stdout
            assert out is not None  # stdout=PIPE
            for line in out:
                records.write(line)
                records.flush()
                if not line.strip():
                    continue
                record = parse_record(line)
                if isinstance(record, ErrorRecord) and record.fatal:
                    fatal = record
                    continue
                yield record
            code = proc.wait()
        finally:
            if timer is not None:
                timer.cancel()
            _kill_group(proc)
            if proc.stdout is not None:
                proc.stdout.close()
    if timed_out.is_set():
        where = f" in {spec_path}" if wording.files_kept else ""
        raise EngineError(
            wording.say(
                f"load engine run timed out after {timeout_s:g} s and was killed; raise the "
                f"timeout or shorten the workload (stop.duration_s / stop.ops){where}"
            )
        )
    if code != 0:
        reason = fatal.message if fatal is not None else _tail(stderr_path) or "no message"
        files = f" (spec: {spec_path}, stderr: {stderr_path})" if wording.files_kept else ""
        raise EngineError(wording.say(f"load engine exited with status {code}: {reason}{files}"))


def check(spec: WorkloadSpec, workdir: Path, *, timeout_s: float = 30.0) -> None:
    """Ask the engine whether it accepts ``spec`` (``--check``): nothing is sent to a cluster.

    Raises :class:`SpecRejectedError` with the engine's reason when it does not.
    """
    binary = engine_binary()
    workdir.mkdir(parents=True, exist_ok=True)
    spec_path = workdir / SPEC_FILE
    sent, secret_env = credentials.for_engine(spec)
    spec_path.write_text(sent.model_dump_json(indent=2) + "\n")
    try:
        proc = subprocess.run(
            [str(binary), "--check", "--spec", str(spec_path)],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            env={**os.environ, **secret_env},
            timeout=timeout_s,
            check=False,
        )
    except subprocess.TimeoutExpired as err:
        raise EngineError(
            f"load engine spec check did not finish in {timeout_s:g} s ({spec_path})"
        ) from err
    if proc.returncode != 0:
        reason = proc.stderr.decode(errors="replace").strip()[-STDERR_TAIL_CHARS:]
        for line in proc.stdout.splitlines():
            record = parse_record(line) if line.strip() else None
            if isinstance(record, ErrorRecord) and record.fatal:
                reason = record.message
        raise SpecRejectedError(
            f"the load engine rejects the workload spec {spec_path}: {reason}", reason
        )


def run(
    spec: WorkloadSpec,
    workdir: Path,
    on_interval: Callable[[IntervalRecord], None] | None = None,
    timeout_s: float | None = None,
    wording: Wording = Wording(),
    preexec: Callable[[], None] | None = None,
    on_start: Callable[[int], None] | None = None,
) -> EngineResult:
    """Run the engine to completion; ``on_interval`` sees each interval as it arrives;
    ``preexec`` runs in its process before it does, ``on_start`` gets its PID (see
    :func:`stream`)."""
    intervals: list[IntervalRecord] = []
    errors: list[ErrorRecord] = []
    summary: SummaryRecord | None = None
    for record in stream(
        spec, workdir, timeout_s=timeout_s, wording=wording, on_start=on_start, preexec=preexec
    ):
        if isinstance(record, IntervalRecord):
            intervals.append(record)
            if on_interval is not None:
                on_interval(record)
        elif isinstance(record, SummaryRecord):
            summary = record
        else:
            errors.append(record)
    if summary is None:
        if wording.files_kept:
            see = f"see {workdir / RECORDS_FILE} and {workdir / STDERR_FILE}"
        else:
            see = f"its stderr: {_tail(workdir / STDERR_FILE) or '(empty)'}"
        raise EngineError(f"load engine ended without a summary record; {see}")
    return EngineResult(intervals=intervals, summary=summary, errors=errors)
