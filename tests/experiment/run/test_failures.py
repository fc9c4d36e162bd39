"""The stop rule: a cluster that cannot start ends the run when no trial left can get past it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from casslab.experiment.design.plan_expansion import expand
from casslab.experiment.design.plan_records import Plan, Trial
from casslab.experiment.file.experiment_model import Experiment
from casslab.experiment.run.failures import ClusterSetup, RunStop, blocked, setup_of


def plan_of(factors: dict[str, list[Any]], iterations: int = 2, **fields: Any) -> Plan:
    data: dict[str, Any] = {
        "name": "t",
        "workload": "mixed ratio(write=9,read=1)",
        "factors": factors,
        "iterations": iterations,
        "order": "sequential",
        **fields,
    }
    return expand(Experiment.model_validate(data))


def ids(trials: tuple[Trial, ...]) -> list[str]:
    return [t.trial_id for t in trials]


def test_table_options_share_one_cluster_so_the_first_failure_stops_the_run() -> None:
    plan = plan_of({"table.compaction": ["STCS", "LCS"]}, cluster={"nodes": 1, "heap": "512M"})
    first, *rest = plan.trials
    assert ids(plan.trials) == [
        "compaction=STCS/1",
        "compaction=STCS/2",
        "compaction=LCS/1",
        "compaction=LCS/2",
    ]
    assert {setup_of(t) for t in plan.trials} == {setup_of(first)}
    assert blocked({setup_of(first)}, rest)


@pytest.mark.parametrize(
    ("factors", "cluster"),
    [
        ({"nodes": [1, 3]}, {}),  # another node count: another cluster
        ({"config.concurrent_compactors": [2, 4]}, {}),  # other settings: a restart
    ],
)
def test_a_trial_left_with_another_setup_may_get_past_it(
    factors: dict[str, list[Any]], cluster: dict[str, Any]
) -> None:
    plan = plan_of(factors, iterations=2, cluster=cluster or {"nodes": 1})
    first = plan.trials[0]
    failed = {setup_of(first)}
    # iteration 2 of the same cell needs the same cluster; the other cell's trials do not
    assert not blocked(failed, plan.trials[1:])
    other = plan.trials[2]
    assert setup_of(other) != setup_of(first)
    # once the other setup failed too, nothing left can get past them
    assert blocked(failed | {setup_of(other)}, plan.trials[3:])
    assert blocked(failed | {setup_of(other)}, plan.trials[1:])


def test_nothing_left_is_blocked_and_no_failure_blocks_nothing() -> None:
    plan = plan_of({"nodes": [1, 3]})
    assert blocked({setup_of(plan.trials[-1])}, ())
    assert not blocked(set(), plan.trials)


def test_the_setup_is_the_node_count_heap_version_and_settings() -> None:
    plan = plan_of(
        {"config.concurrent_compactors": [2]},
        iterations=1,
        cluster={"nodes": 2, "heap": "1G", "version": "5.0.4", "config": {"auto_snapshot": False}},
    )
    (trial,) = plan.trials
    assert setup_of(trial) == ClusterSetup(
        nodes=2,
        heap="1G",
        version="5.0.4",
        settings='{"auto_snapshot": false, "concurrent_compactors": 2}',
    )
    assert setup_of(trial).describe() == (
        '2 node(s), heap 1G, Cassandra 5.0.4, settings {"auto_snapshot": false, '
        '"concurrent_compactors": 2}'
    )


REASON = (
    "cannot start the cluster, ports in use (nothing was started):\n"
    "  node 1: CQL port 127.0.170.1:9042 is busy\n"
    "stop what holds them"
)


def test_the_stop_message_names_the_trial_reason_count_and_fix() -> None:
    stop = RunStop(
        trial_id="compaction=STCS/1",
        setup=ClusterSetup(nodes=1, heap="512M", version=None, settings="{}"),
        reason=REASON,
        not_attempted=3,
        finished=0,
        planned=4,
        report=None,
        resume="casslab run e.yaml --resume-dir results/t/1",
    )
    message = stop.message()
    assert message.startswith(
        "trial compaction=STCS/1: its cluster (1 node(s), heap 512M, default Cassandra) "
        "did not start:\n  cannot start the cluster"
    )
    assert "    node 1: CQL port 127.0.170.1:9042 is busy" in message
    assert "the 3 trial(s) left need a cluster set up like one that did not start" in message
    assert "0 of 4 trial(s) are finished; no report written, as no trial was measured" in message
    assert message.endswith("continue the run: casslab run e.yaml --resume-dir results/t/1")


def test_the_stop_message_points_at_the_report_of_the_finished_trials() -> None:
    stop = RunStop(
        trial_id="compaction=LCS/2",
        setup=ClusterSetup(nodes=1, heap=None, version="5.0.9", settings="{}"),
        reason="node 1 (127.0.0.1) exited during start-up",
        not_attempted=0,
        finished=3,
        planned=4,
        report=Path("results/t/1/report.html"),
        resume="casslab run e.yaml --resume-dir results/t/1",
    )
    message = stop.message()
    assert "the run stopped there; 3 of 4 trial(s) are finished and kept" in message
    assert "report of them: results/t/1/report.html" in message
    assert "trial(s) left" not in message
