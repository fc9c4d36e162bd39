"""Profiles of the nodes over a measured phase: :class:`Profiler` starts a JDK Flight
Recorder recording in every node's JVM (``jcmd JFR.start``, :mod:`casslab.host.jfr`) when
the phase starts and stops it when it ends, then writes, per node, the recording
(``node<N>.jfr``) and per profile kind its collapsed stacks (``node<N>-<kind>.collapsed``)
and flame graph (``node<N>-<kind>.svg``, :mod:`casslab.report.flame.svg`).

JFR, not async-profiler: it is in every JDK that runs Cassandra, attaches without an agent
and needs nothing downloaded; it sees Java frames only (no native or kernel frames).
Nodes on this machine only: ``jcmd`` attaches by PID."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path

from casslab.analysis.profile_kind import UNITS, ProfileKind
from casslab.cluster import Cluster, attach, current_name
from casslab.errors import ExperimentError, SetupError
from casslab.host import jfr
from casslab.record import Record

RECORDING = "casslab-measure"


class NodeProfile(Record):
    """One node's profile of one kind: where its files are and its total weight."""

    node: int
    kind: ProfileKind
    stacks_path: str
    svg_path: str
    weight: int  # samples, bytes or waits (UNITS)


class Profiler:
    """Profiles the JVMs ``pids`` (node number -> PID) into ``directory``."""

    def __init__(
        self, pids: Mapping[int, int], kinds: Sequence[ProfileKind], directory: Path
    ) -> None:
        self._pids = dict(pids)
        self._kinds = tuple(dict.fromkeys(kinds))
        self._directory = directory
        self._started: list[int] = []

    @property
    def running(self) -> bool:
        """Whether recordings were started and not yet stopped."""
        return bool(self._started)

    def start(self) -> None:
        """Start recording in every node (a failure stops those already started)."""
        try:
            for node, pid in sorted(self._pids.items()):
                jfr.start(pid, RECORDING)
                self._started.append(node)
        except SetupError:
            self.stop(write=False)
            raise

    def stop(self, *, write: bool = True) -> list[NodeProfile]:
        """Stop every recording started and, with ``write``, write its files."""
        out: list[NodeProfile] = []
        started, self._started = self._started, []
        for node in started:
            recording = jfr.stop(self._pids[node], RECORDING, self._directory / f"node{node}.jfr")
            if not write:
                recording.unlink(missing_ok=True)
                continue
            for kind in self._kinds:
                out.append(self._write(node, kind, recording))
        return out

    def _write(self, node: int, kind: ProfileKind, recording: Path) -> NodeProfile:
        # here, not at the top: casslab.report loads its plotting and statistics (seconds),
        # which `casslab stress --profile` would pay before it checks anything
        from casslab.report.flame.stacks import collapsed_text
        from casslab.report.flame.svg import flame_svg

        stacks = jfr.collapsed_stacks(recording, kind)
        stem = self._directory / f"node{node}-{kind.value}"
        stacks_path, svg_path = stem.with_suffix(".collapsed"), stem.with_suffix(".svg")
        stacks_path.write_text(collapsed_text(stacks))
        title = f"node {node}: {kind.value} profile of the measured phase"
        svg_path.write_text(flame_svg(stacks, title=title, unit=UNITS[kind]))
        return NodeProfile(
            node=node,
            kind=kind,
            stacks_path=str(stacks_path),
            svg_path=str(svg_path),
            weight=sum(stacks.values()),
        )


def boot_options(kinds: Sequence[ProfileKind]) -> tuple[str, ...]:
    """The JVM options of the nodes of a run that profiles ``kinds``: Flight Recorder set up
    as the JVM starts (:data:`casslab.host.jfr.AT_BOOT`: its first runtime start would make
    the JIT recompile during the measurement); none without ``kinds``."""
    return (jfr.AT_BOOT,) if kinds else ()


def profiler_for(
    cluster: Cluster, kinds: Sequence[ProfileKind], directory: Path
) -> Profiler | None:
    """The trial's profiler (None without ``kinds``); an :class:`ExperimentError` for a
    cluster whose nodes do not run on this machine."""
    if not kinds:
        return None
    if cluster.capabilities().processes is None:  # no node process casslab runs here
        raise ExperimentError(
            f"profile: {', '.join(k.value for k in kinds)} needs nodes on this machine "
            f"(jcmd attaches by PID); cluster {cluster.name!r} is not a local one: drop "
            "profile: or run the nodes here"
        )
    pids = {n.number: n.pid for n in cluster.nodes if n.pid is not None}
    directory.mkdir(parents=True, exist_ok=True)
    return Profiler(pids, kinds, directory)


def current_cluster_profiler(kinds: Sequence[ProfileKind], directory: Path) -> Profiler | None:
    """The profiler of the current casslab cluster's nodes (``casslab stress --profile``);
    None without ``kinds``; an :class:`ExperimentError` without a current cluster."""
    if not kinds:
        return None
    if current_name() is None:
        raise ExperimentError(
            f"--profile {' '.join(k.value for k in kinds)}: there is no current casslab "
            "cluster to profile; start one with `casslab up` (its nodes run here)"
        )
    return profiler_for(attach(), kinds, directory)


def cold_start_note() -> str | None:
    """What ``casslab stress --profile`` says when the current cluster's nodes did not set
    Flight Recorder up as they started (None when they did): the recording's first start
    makes their JIT recompile (:data:`casslab.host.jfr.AT_BOOT`)."""
    cluster = attach()
    if jfr.AT_BOOT in cluster.state.spec.jvm_options:
        return None
    return (
        f"note: the nodes of {cluster.name!r} did not start with Flight Recorder set up; its "
        "first start in a node makes the node's JIT recompile, slower for about 30 s (a third "
        "of its op rate here). For profiles that cost only what they record, start the "
        f"cluster with: casslab up --jvm-option {jfr.AT_BOOT}"
    )


@contextmanager
def recorded(profiler: Profiler | None) -> Iterator[list[NodeProfile]]:
    """Around the measured phase: stops ``profiler`` at its end (also on an error) and
    writes its files; the list it yields gets the profiles."""
    profiles: list[NodeProfile] = []
    try:
        yield profiles
    finally:
        if profiler is not None:
            profiles += profiler.stop()
