"""The metrics recording of one running cluster, kept open across its measured phases.

Starting the samplers costs CPU: the JMX helper is a JVM (a third of a CPU second to start
and connect, then its compiler works through the RMI paths for minutes), each CQL
connection a driver handshake, each process sampler its first /proc reads. Started at the
beginning of every measured phase, as the recorder once was, that cost lands in the first
seconds of the measurement, on the machine that runs the nodes (bench/recording_overhead.py:
about 30 % of one core in the second after the engine's first record). Here they start
once per cluster, before its first measured phase, and are warmed: one discarded sample,
and the JMX helper polled until its hot paths are compiled. Each measured phase then only
reads every source once (rate baselines) before the engine starts, and runs a sampling
thread and a Parquet sink: under 2 % of one core in every second of the phase::

    recording = ClusterRecording.open(cluster)          # JMX helper, CQL, /proc: warmed
    with recording.measure_phase(trial_dir / "metrics.parquet") as phase:
        engine.stream(spec, trial_dir, on_start=phase.add_engine)   # ... read the records
    ...                                                 # between phases: nothing sampled
    recording.close()                                   # the nodes restart: PIDs change

:class:`LazyRecording` is what the runner holds: it opens the recording at the first
measured phase after the cluster (re)started, reopens it when the nodes' PIDs changed
(the ``restart`` reset policy restarts them inside a trial) and closes it when the runner
restarts, recreates or finishes the cluster.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from casslab.errors import MetricsError

if TYPE_CHECKING:
    from casslab.cluster import Cluster
    from casslab.metrics.sampling import Recorder
    from casslab.metrics.source import Source

log = logging.getLogger(__name__)

SourceFactory = Callable[["Cluster", "int | None"], "list[Source]"]
"""The metrics samplers of a cluster's nodes, and of the engine with that PID when one is
given (the recording asks for the nodes' only: ``factory(cluster, None)``)."""

EngineSourceFactory = Callable[[int], "Source"]
"""The sampler of the load engine process with that PID."""


def default_sources(cluster: Cluster, engine_pid: int | None = None) -> list[Source]:
    """Host, process, cgroup, CQL and JMX samplers of every node (and the engine's); the
    host and process of nodes on SSH hosts through their /proc over SSH."""
    from casslab.metrics.cluster_sources import cluster_sources

    return cluster_sources(cluster, engine_pid)


def default_engine_source(pid: int) -> Source:
    """psutil sampler of the engine process (rows under node ``engine``)."""
    from casslab.metrics import engine_source

    return engine_source(pid)


class MeasuredPhase:
    """The sampling of one measured phase (from :meth:`ClusterRecording.measure_phase`)."""

    def __init__(self, recorder: Recorder, engine_source: EngineSourceFactory) -> None:
        self._recorder = recorder
        self._engine_source = engine_source
        self.engine_sources: list[Source] = []

    @property
    def recorder(self) -> Recorder:
        return self._recorder

    def add_engine(self, pid: int) -> None:
        """Sample the engine process ``pid`` too from the next instant on. It is read once
        now, so its first recorded instant already has a CPU rate."""
        from casslab.metrics.source import SourceUnavailableError

        source = self._engine_source(pid)
        try:
            source.sample(time.time())
        except SourceUnavailableError as error:  # gone already: the loop records the gap
            log.debug("engine %d not readable at its start: %s", pid, error)
        self.engine_sources.append(source)
        self._recorder.add_source(source)


class ClusterRecording:
    """The samplers of one running cluster's nodes, opened once and kept across its
    measured phases (see the module docstring); :meth:`close` releases them."""

    def __init__(
        self,
        sources: Sequence[Source],
        *,
        interval_s: float = 1.0,
        flush_every_s: float = 5.0,
        engine_source: EngineSourceFactory = default_engine_source,
    ) -> None:
        from casslab.metrics.sampling import check_interval

        check_interval(interval_s)  # before any sampler opens
        self._sources = list(sources)
        self._interval_s = interval_s
        self._flush_every_s = flush_every_s
        self._engine_source = engine_source
        self._in_phase = False
        self.closed = False
        self.phases = 0

    @classmethod
    def open(
        cls,
        cluster: Cluster,
        factory: SourceFactory = default_sources,
        *,
        interval_s: float = 1.0,
        flush_every_s: float = 5.0,
        engine_source: EngineSourceFactory = default_engine_source,
    ) -> ClusterRecording:
        """Create the node samplers of ``cluster`` and warm them (:meth:`warm`): the JMX
        helper starts and compiles, the CQL connections open, /proc is read once."""
        recording = cls(
            factory(cluster, None),
            interval_s=interval_s,
            flush_every_s=flush_every_s,
            engine_source=engine_source,
        )
        recording.warm()
        return recording

    @property
    def sources(self) -> list[Source]:
        return list(self._sources)

    def warm(self) -> None:
        """Read every source once and discard the values (failures are only logged), and
        let the sources with start-up work (:class:`~casslab.metrics.source.Warmable`:
        the JMX helper's compiler) do it now."""
        from casslab.metrics.sampling import sample_once
        from casslab.metrics.source import Warmable

        _samples, gaps = sample_once(self._sources, time.time())
        for gap in gaps:
            log.info("metrics source %s of %s at warm-up: %s", gap.source, gap.node, gap.error)
        for source in self._sources:
            if isinstance(source, Warmable):
                source.warm()

    @contextmanager
    def measure_phase(
        self, metrics_path: Path, engine_pid: int | None = None
    ) -> Iterator[MeasuredPhase]:
        """Sample the nodes (and the engine, once :meth:`MeasuredPhase.add_engine` names
        it, or ``engine_pid`` now) into ``metrics_path`` until the block exits; then the
        file is complete and the node samplers stay open for the next phase."""
        from casslab.metrics.sampling import Recorder, sample_once
        from casslab.metrics.store import ParquetSink

        if self.closed:
            raise MetricsError(
                "measuring with a closed cluster recording: open a new one for the cluster"
            )
        if self._in_phase:
            raise MetricsError(
                f"measuring into {metrics_path}: the cluster recording is already in a phase"
            )
        # Rate baselines: the sources' last readings are from the previous phase. Read
        # them once now, before the engine starts, and sample from one interval on.
        primed_at = time.time()
        sample_once(self._sources, primed_at)
        recorder = Recorder(
            self._sources,
            ParquetSink(metrics_path),
            interval_s=self._interval_s,
            flush_every_s=self._flush_every_s,
            close_sources=False,
            first_tick_s=primed_at + self._interval_s,
        )
        phase = MeasuredPhase(recorder, self._engine_source)
        if engine_pid is not None:
            phase.add_engine(engine_pid)
        self._in_phase = True
        recorder.start()
        try:
            yield phase
        finally:
            self._in_phase = False
            try:
                recorder.stop()
            finally:
                for source in phase.engine_sources:
                    source.close()
            self.phases += 1

    def close(self) -> None:
        """Close every node sampler (the JMX helper stops, CQL connections close). A
        sampler that fails to close is logged and the others are closed all the same: the
        measurements are written already, and the cluster is being restarted or stopped."""
        if self.closed:
            return
        self.closed = True
        for source in self._sources:
            try:
                source.close()
            except Exception:  # the driver raises many types; close the others
                log.warning(
                    "closing metrics source %s of %s", source.name, source.node, exc_info=True
                )


def _nodes_key(cluster: Cluster) -> tuple[object, ...]:
    """What must stay the same for a recording to go on: the cluster object and each
    node's address, PID and JMX port."""
    return (id(cluster), *((n.address, n.pid, n.jmx_port) for n in cluster.nodes))


class LazyRecording:
    """The runner's :class:`ClusterRecording` of its current cluster: opened at the first
    measured phase after the cluster (re)started (:meth:`of`), reopened when the nodes'
    PIDs changed since, closed by the runner whenever it restarts, recreates or finishes
    the cluster (:meth:`close`)."""

    def __init__(
        self,
        factory: SourceFactory = default_sources,
        *,
        interval_s: float = 1.0,
        engine_source: EngineSourceFactory = default_engine_source,
    ) -> None:
        self._factory = factory
        self._interval_s = interval_s
        self._engine_source = engine_source
        self._recording: ClusterRecording | None = None
        self._key: tuple[object, ...] | None = None
        self.opened = 0

    @property
    def current(self) -> ClusterRecording | None:
        return self._recording

    def of(self, cluster: Cluster) -> ClusterRecording:
        """The open recording of ``cluster``, opening (or reopening) it if needed."""
        key = _nodes_key(cluster)
        if self._recording is not None and self._key != key:
            log.info("the cluster's nodes changed since its recording opened: reopening it")
            self.close()
        if self._recording is None:
            self._recording = ClusterRecording.open(
                cluster,
                self._factory,
                interval_s=self._interval_s,
                engine_source=self._engine_source,
            )
            self._key = key
            self.opened += 1
        return self._recording

    def close(self) -> None:
        """Close the open recording, if any (the next :meth:`of` opens a new one)."""
        recording, self._recording, self._key = self._recording, None, None
        if recording is not None:
            recording.close()
