"""Spawn the Rust load engine and read its records.

The engine (``engine/``, binary ``casslab-engine``) reads a :class:`WorkloadSpec` as JSON
and writes one JSON line per record (:class:`IntervalRecord`, :class:`ErrorRecord`, a final
:class:`SummaryRecord`). :func:`stream` yields the records as they arrive and always kills
the engine's process group when the caller stops reading, fails, times out or is
interrupted; :func:`run` collects a whole run into an :class:`EngineResult`.
"""

from __future__ import annotations

import os
import subprocess
import threading
from collections.abc import Callable, Generator
from pathlib import Path
from typing import IO

from pydantic import Field, TypeAdapter, ValidationError

from casslab import procgroup
from casslab.errors import EngineError
from casslab.load.spec import (
    EngineRecord,
    ErrorRecord,
    IntervalRecord,
    Record,
    SummaryRecord,
    WorkloadSpec,
)

ENGINE_ENV = "CASSLAB_ENGINE"
ENGINE_NAME = "casslab-engine"
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


def repo_root() -> Path:
    """The checkout this module lives in (``<root>/src/casslab/load/engine.py``)."""
    return Path(__file__).resolve().parents[3]


def engine_binary() -> Path:
    """The engine executable: ``$CASSLAB_ENGINE`` if set, else the release build."""
    configured = os.environ.get(ENGINE_ENV)
    path = Path(configured) if configured else repo_root() / "target" / "release" / ENGINE_NAME
    if not path.is_file() or not os.access(path, os.X_OK):
        source = f"${ENGINE_ENV}" if configured else "the release build"
        raise EngineError(
            f"load engine not found: {source} points at {path}, which is not an executable "
            f"file; run `make engine` in {repo_root()} (or set {ENGINE_ENV} to the binary)"
        )
    return path


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
    spec: WorkloadSpec, workdir: Path, *, timeout_s: float | None = None
) -> Generator[EngineRecord, None, None]:
    """Run the engine on ``spec`` and yield its records as they arrive.

    Closing the generator (or leaving a ``for`` loop over it early) kills the engine.

    Writes ``workdir/spec.json`` (the spec as sent, records forced to standard output),
    ``workdir/engine.jsonl`` (every line received) and ``workdir/engine.stderr``. A fatal
    :class:`ErrorRecord` is not yielded: it becomes the message of the :class:`EngineError`
    raised when the engine exits non-zero. After ``timeout_s`` the engine is killed and
    :class:`EngineError` raised.
    """
    binary = engine_binary()
    workdir.mkdir(parents=True, exist_ok=True)
    sent = spec.model_copy(update={"output": spec.output.model_copy(update={"jsonl": None})})
    spec_path = workdir / SPEC_FILE
    spec_path.write_text(sent.model_dump_json(indent=2) + "\n")
    records_path = workdir / RECORDS_FILE
    stderr_path = workdir / STDERR_FILE

    timed_out = threading.Event()
    fatal: ErrorRecord | None = None
    with stderr_path.open("wb") as err_file, records_path.open("wb") as records:
        proc = subprocess.Popen(
            [str(binary), "--spec", str(spec_path)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=err_file,
            start_new_session=True,
        )
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
        raise EngineError(
            f"load engine run timed out after {timeout_s:g} s and was killed; raise the "
            f"timeout or shorten the workload (stop.duration_s / stop.ops) in {spec_path}"
        )
    if code != 0:
        reason = fatal.message if fatal is not None else _tail(stderr_path) or "no message"
        raise EngineError(
            f"load engine exited with status {code}: {reason} (spec: {spec_path}, "
            f"stderr: {stderr_path})"
        )


def check(spec: WorkloadSpec, workdir: Path, *, timeout_s: float = 30.0) -> None:
    """Ask the engine whether it accepts ``spec`` (``--check``): nothing is sent to a cluster.

    Raises :class:`EngineError` with the engine's reason when it does not.
    """
    binary = engine_binary()
    workdir.mkdir(parents=True, exist_ok=True)
    spec_path = workdir / SPEC_FILE
    spec_path.write_text(spec.model_dump_json(indent=2) + "\n")
    try:
        proc = subprocess.run(
            [str(binary), "--check", "--spec", str(spec_path)],
            stdin=subprocess.DEVNULL,
            capture_output=True,
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
        raise EngineError(f"the load engine rejects the workload spec {spec_path}: {reason}")


def run(
    spec: WorkloadSpec,
    workdir: Path,
    on_interval: Callable[[IntervalRecord], None] | None = None,
    timeout_s: float | None = None,
) -> EngineResult:
    """Run the engine to completion; ``on_interval`` sees each interval as it arrives."""
    intervals: list[IntervalRecord] = []
    errors: list[ErrorRecord] = []
    summary: SummaryRecord | None = None
    for record in stream(spec, workdir, timeout_s=timeout_s):
        if isinstance(record, IntervalRecord):
            intervals.append(record)
            if on_interval is not None:
                on_interval(record)
        elif isinstance(record, SummaryRecord):
            summary = record
        else:
            errors.append(record)
    if summary is None:
        raise EngineError(
            f"load engine ended without a summary record; see {workdir / RECORDS_FILE} "
            f"and {workdir / STDERR_FILE}"
        )
    return EngineResult(intervals=intervals, summary=summary, errors=errors)
