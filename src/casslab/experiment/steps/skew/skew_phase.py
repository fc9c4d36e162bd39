"""The trial's clock skew and its last-write-wins probe, around the measured phase
(:mod:`casslab.experiment.steps.skew.skew_section`): the runner sets every node's clock before the
trial, counts the messages the nodes drop as expired from the measured phase to the end of the
probe, and runs the probe after the measured phase."""

from __future__ import annotations

import time

from casslab.cluster import clock_skew
from casslab.cluster.backend import Cluster
from casslab.experiment.design.plan_records import Trial
from casslab.experiment.run.trial_phases import PhaseTimes


def set_clocks(cluster: Cluster, trial: Trial) -> None:
    """Write every node's clock file for ``trial``: its ``cluster.clock`` offset, on time
    when it names none (no drift), then wait until the nodes use it. A cluster whose clocks
    are all on time already and a trial without offsets: nothing to do."""
    wanted = {node.number: trial.clock.get(node.number, 0.0) for node in cluster.nodes}
    current = {node.number: clock_skew.read_skew(node) for node in cluster.nodes}
    if all(s.offset_ms == wanted[n] and s.drift_ppm == 0 for n, s in current.items()):
        return
    clock_skew.require_injectable(cluster.state)
    for node in cluster.nodes:
        clock_skew.write_skew(node, clock_skew.ClockSkew(offset_ms=wanted[node.number]))
    time.sleep(clock_skew.SETTLE_S)


def expired_before(cluster: Cluster, trial: Trial) -> int | None:
    """The nodes' count of messages dropped as expired, before the measured phase of a
    trial with clock offsets or the probe (None for any other trial: not counted)."""
    if not trial.clock and trial.lww is None:
        return None
    from casslab.cluster.lww import expired_messages

    try:
        return expired_messages(cluster)
    finally:
        cluster.close_sessions()


def probe_kpis(
    cluster: Cluster, trial: Trial, expired: int | None, times: PhaseTimes
) -> dict[str, float | None]:
    """After the measured phase: run the trial's probe (phase ``lww``), and the KPIs it and
    the expired count give (empty for a trial with neither)."""
    from casslab.cluster.lww import expired_messages, probe

    kpis: dict[str, float | None] = {}
    if trial.lww is not None:
        spec = trial.lww
        with times.phase("lww"):
            seen = probe(
                cluster,
                gap_ms=spec.gap_ms,
                client_timestamps=spec.client_timestamps,
                keys=spec.keys,
                good=spec.good,
                skewed=spec.skewed,
            )
        acknowledged = seen.keys - seen.unacknowledged
        kpis |= {
            "lww_lost": float(seen.lost.hits if seen.lost else 0),
            "lww_acknowledged": float(acknowledged),
            "lww_lost_pct": 100 * seen.lost.fraction if seen.lost else None,
            "lww_unacknowledged_pct": 100 * seen.unacknowledged / seen.keys,
        }
    if expired is not None:
        try:
            kpis["expired_messages"] = float(max(0, expired_messages(cluster) - expired))
        finally:
            cluster.close_sessions()
    return kpis
