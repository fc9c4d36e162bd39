"""The recorder: one sampling thread calling every source once per interval.

A source that raises :class:`SourceUnavailableError` (node down, timeout, process gone) leaves a
:class:`Gap` for that instant and the loop goes on with the others. Samples and gaps are
handed to the sink every ``flush_every_s`` seconds, so a crash loses at most that much.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from types import TracebackType

from casslab.errors import MetricsError
from casslab.metrics.source import Gap, Sample, Source, SourceUnavailableError
from casslab.metrics.store import ParquetSink

log = logging.getLogger(__name__)

TickCallback = Callable[[float, list[Sample], list[Gap]], None]


def sample_once(sources: Sequence[Source], now: float) -> tuple[list[Sample], list[Gap]]:
    """Call every source once at ``now``; failures become gaps, never exceptions."""
    samples: list[Sample] = []
    gaps: list[Gap] = []
    for src in sources:
        try:
            samples.extend(src.sample(now))
        except SourceUnavailableError as e:
            gaps.append(Gap(time=now, node=src.node, source=src.name, error=str(e)))
        except Exception as e:  # one broken source must not stop the others
            log.exception("metrics source %s of %s failed", src.name, src.node)
            gaps.append(
                Gap(time=now, node=src.node, source=src.name, error=f"{type(e).__name__}: {e}")
            )
    return samples, gaps


def check_interval(interval_s: float) -> None:
    """Raise :class:`MetricsError` when a sampling interval is not positive."""
    if interval_s <= 0:
        raise MetricsError(f"sampling interval {interval_s} s is not positive; give e.g. 1s")


class Recorder:
    """Samples ``sources`` every ``interval_s`` on a background thread into ``sink``.

    Use as a context manager, or call :meth:`start` and :meth:`stop`. ``on_tick`` (if given)
    is called on the sampling thread with each instant's samples and gaps. ``stop`` flushes,
    merges the sink's part files and closes every source, unless ``close_sources`` is False
    (sources kept open for a later recorder, see :mod:`casslab.experiment.run.recording`).

    ``first_tick_s`` is the Unix time of the first instant (default: at once), e.g. one
    interval after the caller read every source to set its rate baselines.
    """

    def __init__(
        self,
        sources: Sequence[Source],
        sink: ParquetSink | None = None,
        *,
        interval_s: float = 1.0,
        flush_every_s: float = 5.0,
        on_tick: TickCallback | None = None,
        close_sources: bool = True,
        first_tick_s: float | None = None,
    ) -> None:
        check_interval(interval_s)
        self._sources = list(sources)
        self._sink = sink
        self._interval_s = interval_s
        self._flush_every_s = flush_every_s
        self._on_tick = on_tick
        self._close_sources = close_sources
        self._first_tick_s = first_tick_s
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._pending_samples: list[Sample] = []
        self._pending_gaps: list[Gap] = []
        self._lock = threading.Lock()
        self._error: BaseException | None = None
        self.ticks = 0
        self.samples_recorded = 0
        self.gaps_recorded = 0
        self.thread_cpu_s = 0.0
        """CPU seconds spent by the sampling thread itself (for the overhead benchmark)."""

    def add_source(self, source: Source) -> None:
        """Sample ``source`` too from the next instant on (e.g. the engine once spawned)."""
        with self._lock:
            self._sources = [*self._sources, source]

    def start(self) -> None:
        if self._thread is not None:
            raise MetricsError("starting the metrics recorder: it is already running")
        self._thread = threading.Thread(target=self._run, name="casslab-metrics", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        start_cpu = time.thread_time()
        next_tick = time.time() if self._first_tick_s is None else self._first_tick_s
        last_flush = time.monotonic()
        try:
            self._stop.wait(max(0.0, next_tick - time.time()))
            while not self._stop.is_set():
                now = time.time()
                with self._lock:
                    sources = self._sources
                samples, gaps = sample_once(sources, now)
                self.ticks += 1
                self.samples_recorded += len(samples)
                self.gaps_recorded += len(gaps)
                with self._lock:
                    self._pending_samples.extend(samples)
                    self._pending_gaps.extend(gaps)
                if self._on_tick is not None:
                    self._on_tick(now, samples, gaps)
                if time.monotonic() - last_flush >= self._flush_every_s:
                    self._flush()
                    last_flush = time.monotonic()
                self.thread_cpu_s = time.thread_time() - start_cpu
                next_tick += self._interval_s
                delay = next_tick - time.time()
                if delay < 0:  # fell behind (slow source): skip the missed instants
                    next_tick = time.time() + self._interval_s
                    delay = self._interval_s
                self._stop.wait(delay)
        except BaseException as e:  # noqa: BLE001 - handed to stop(), which raises it
            self._error = e
        finally:
            self.thread_cpu_s = time.thread_time() - start_cpu

    def _flush(self) -> None:
        with self._lock:
            samples, self._pending_samples = self._pending_samples, []
            gaps, self._pending_gaps = self._pending_gaps, []
        if self._sink is not None:
            self._sink.write(samples, gaps)

    def stop(self) -> None:
        """Stop sampling, write what is pending, close the sink and (unless the recorder
        was told not to) the sources."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=max(30.0, 5 * self._interval_s))
        try:
            self._flush()
            if self._sink is not None:
                self._sink.close()
        finally:
            with self._lock:
                sources = self._sources
            for src in sources if self._close_sources else ():
                src.close()
        if self._error is not None:
            raise MetricsError(f"the metrics sampling loop failed: {self._error}") from self._error

    def __enter__(self) -> Recorder:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
