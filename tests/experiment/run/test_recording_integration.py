"""The cluster recording on a real node (the session's shared one, emptied) across two
real engine measured phases: one JMX helper for both, nothing sampled in between, every
sampler's rows in each phase's file, and per-process KPIs that add up and agree with the
node's CPU read independently."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from casslab.analysis import trial_kpis
from casslab.cluster import LocalCluster
from casslab.engine_contract.workload_spec import Connection, WorkloadSpec
from casslab.experiment.design.plan_expansion import expand
from casslab.experiment.design.plan_records import Trial
from casslab.experiment.file.experiment_model import Experiment
from casslab.experiment.run import trial_phases
from casslab.experiment.run.engine_specs import spec_for
from casslab.experiment.run.recording import LazyRecording
from casslab.metrics import load
from casslab.metrics.jmx import JmxSource
from cli_entry import NEEDS_ENGINE
from shared_clusters import emptied

pytestmark = [pytest.mark.integration, *NEEDS_ENGINE]

DURATION_S = 8


@pytest.fixture(scope="module")
def node(shared_node: LocalCluster) -> Iterator[LocalCluster]:
    yield from emptied(shared_node)


def _trial_and_spec(cluster: LocalCluster) -> tuple[Trial, WorkloadSpec]:
    experiment = Experiment.model_validate(
        {
            "name": "recording",
            "workload": "write",
            "measure": f"duration={DURATION_S}s -rate threads=4 fixed=400/s",
        }
    )
    trial = expand(experiment).trials[0]
    connection = Connection(contact_points=cluster.contact_points)
    return trial, spec_for(trial.workload, connection, 1)


def _cpu_s(pid: int) -> float:
    times = psutil.Process(pid).cpu_times()
    return float(times.user + times.system)


# measuring: the node's CPU read over the whole phase call is compared with the sampler's
# over the measured window within 50% (+5 points). The node's work outside the window (the
# JMX helper's attach, the engine's connect and shut-down) stretches on a busy machine: in
# the parallel phase of a full run it once doubled the independent reading (51% of a core
# against the sampler's 24%) at this phase's light load (400 writes/s for 8 s).
@pytest.mark.measuring
def test_two_measured_phases_share_one_recording(node: LocalCluster, tmp_path: Path) -> None:
    trial, workload = _trial_and_spec(node)
    trial_phases.create_schema(node, trial, [workload])
    node_pid = node.nodes[0].pid
    assert node_pid is not None
    recording = LazyRecording()
    helpers: list[int | None] = []
    clocks: list[trial_phases.TrialClock] = []
    node_cpu: list[tuple[float, float]] = []
    try:
        for n in (1, 2):
            clock = trial_phases.TrialClock()
            before = _cpu_s(node_pid)
            trial_phases.measure(
                node,
                trial,
                workload,
                tmp_path / f"t{n}",
                hdr_log=tmp_path / f"t{n}" / "latency.hlog",
                metrics_path=tmp_path / f"t{n}" / "metrics.parquet",
                clock=clock,
                recording=recording,
                timeout_s=120,
                emit=lambda _event: None,
            )
            node_cpu.append((before, _cpu_s(node_pid)))
            clocks.append(clock)
            current = recording.current
            assert current is not None
            jmx = [s for s in current.sources if isinstance(s, JmxSource)]
            assert len(jmx) == 1
            helpers.append(jmx[0]._client.pid)
        assert recording.opened == 1  # opened at the first phase, kept for the second
        assert helpers[0] is not None
        assert helpers[0] == helpers[1]  # the same JMX helper JVM served both phases
        helper = psutil.Process(helpers[0])
    finally:
        recording.close()
    helper.wait(timeout=15)  # closing the recording stops the helper
    assert not helper.is_running()

    for n, clock in enumerate(clocks, 1):
        frame = load(tmp_path / f"t{n}" / "metrics.parquet")
        assert clock.measure_start is not None
        assert clock.measure_end is not None
        sources = {m.split(".", 1)[0] for m in set(frame.metric)}
        assert {"host", "process", "cassandra", "engine"} <= sources
        assert "cassandra.gc_pause_ms" in set(frame.metric)  # JMX answered
        # nothing sampled before the phase: rows start after the phase's first instant
        assert frame.time.min() >= clock.measure_start - 2.0
        assert frame.time.max() <= clock.measure_end + 2.0

        kpis = trial_kpis(
            trial_id=trial.trial_id,
            cell_id=trial.cell_id,
            iteration=n,
            factors={},
            metrics=frame,
            start=clock.measure_start,
            end=clock.measure_end,
        ).kpis
        host, cassandra = kpis["host_cpu_pct"], kpis["cassandra_cpu_pct"]
        engine_cpu, other = kpis["engine_cpu_pct"], kpis["other_cpu_pct"]
        assert host is not None
        assert cassandra is not None
        assert engine_cpu is not None
        assert other is not None
        assert 0 < host <= 100.0 * (psutil.cpu_count() or 1)
        assert cassandra > 0
        assert engine_cpu > 0
        assert cassandra + engine_cpu + other == pytest.approx(host)
        # The processes' CPU time is the scheduler's, exact; the host's busy time is the
        # wall time less the idle time of /proc/stat, which some kernels count at their
        # ticks and over-count under a light load that sleeps across them. Here 'other'
        # comes out at +4 to +6 % of a core; a CI machine read Cassandra at 61.5 % and the
        # host at 52.1 %. So the processes may exceed the host by a quarter at most.
        assert cassandra + engine_cpu < 1.25 * host + 5.0
        assert other > -0.25 * host - 5.0
        user, system = kpis["cassandra_cpu_user_pct"], kpis["cassandra_cpu_system_pct"]
        assert user is not None
        assert system is not None
        assert user + system == pytest.approx(cassandra, rel=0.01)
        assert kpis["node1.cassandra_cpu_pct"] == pytest.approx(cassandra)
        # the node's CPU read independently, over the whole phase (engine start-up and
        # shut-down included, hence the slack)
        before, after = node_cpu[n - 1]
        phase_s = clock.measure_end - clock.measure_start
        independent = 100.0 * (after - before) / phase_s
        assert cassandra == pytest.approx(independent, rel=0.5, abs=5.0)
        assert kpis["gc_pause_ms"] is not None
        assert kpis["gc_pause_ms"] >= 0
        assert (kpis["cassandra_disk_write_bytes_per_s"] or 0) > 0  # the commit log
        assert (kpis["cassandra_rss_bytes"] or 0) > 100 * 2**20
        assert (kpis["engine_rss_bytes"] or 0) > 2**20
