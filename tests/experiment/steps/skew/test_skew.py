"""Clock skew in experiment files: cluster.clock (in the section or as a factor) and the
lww probe (its section and lww.<field> factors) resolve into each trial, change no
cluster setup (no restart), and every mistake is a problem before anything starts."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from casslab.errors import ExperimentValidationError
from casslab.experiment.design.factor_levels import level_slug
from casslab.experiment.design.plan_expansion import expand
from casslab.experiment.file import experiment_loader, jdk_checks
from casslab.experiment.file.experiment_model import Experiment, FactorKind, parse_factor_name
from casslab.experiment.steps.skew.skew_section import (
    LwwProbe,
    LwwSection,
    clock_offsets,
    needs_injectable_clock,
    resolve_probe,
    skewed_node,
)


def _data(**fields: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "name": "skew",
        "cluster": {"nodes": 3, "heap": "512M", "config": {"auto_snapshot": False}},
        "schema": {"replication": {"class": "SimpleStrategy", "replication_factor": 3}},
        "factors": {"cluster.clock": [{}, {2: "-500ms"}], "lww.gap": ["10ms", "100ms"]},
        "lww": {"keys": 20},
        "workload": "write cl=QUORUM",
        "measure": "duration=10s -rate threads=4",
        "iterations": 2,
        "order": "sequential",
        "kpis": ["lww_lost_pct", "expired_messages", "op_rate"],
    }
    data.update(fields)
    return data


def _load(data: dict[str, Any]) -> Experiment:
    return experiment_loader.parse(yaml.safe_dump(data, sort_keys=False), "skew.yaml")


def _problems(data: dict[str, Any]) -> str:
    with pytest.raises(ExperimentValidationError) as raised:
        _load(data)
    return " | ".join(raised.value.problems)


def test_offsets_need_their_unit_and_name_nodes() -> None:
    assert clock_offsets({2: "-500ms", "3": "+1.5s"}) == {2: -500.0, 3: 1500.0}
    assert clock_offsets({}) == clock_offsets(None) == {}
    with pytest.raises(
        ValueError, match="clock offset -500 of node 2: give a number with its unit"
    ):
        clock_offsets({2: -500})
    with pytest.raises(ValueError, match="node 'x': expected a node number"):
        clock_offsets({"x": "-5ms"})
    with pytest.raises(ValueError, match="expected node offsets such as"):
        clock_offsets("-500ms")


def test_the_factor_names() -> None:
    assert parse_factor_name("cluster.clock") == (FactorKind.CLOCK, ("clock",))
    assert parse_factor_name("lww.gap") == (FactorKind.LWW, ("gap",))
    with pytest.raises(
        ValueError, match=r"unknown lww factor 'lww.skew': an lww factor is one of lww.gap"
    ):
        parse_factor_name("lww.skew")


def test_the_skewed_node_is_the_one_furthest_behind() -> None:
    assert skewed_node({2: -50.0, 3: -500.0}, 3) == 3
    assert skewed_node({}, 3) == 2
    assert skewed_node({1: 200.0}, 3) == 1  # ahead is skewed too; v1 then comes from 2
    probe = resolve_probe(LwwSection(), {"gap": "1s", "timestamps": "client"}, {3: -5.0}, 3)
    assert probe == LwwProbe(keys=100, gap_ms=1000.0, client_timestamps=True, good=1, skewed=3)


def test_each_trial_gets_its_clock_and_probe_without_a_restart() -> None:
    plan = expand(_load(_data()))
    assert len(plan.trials) == 8
    assert [t.restart for t in plan.trials] == [True] + [False] * 7  # the clock needs none
    by_cell = {t.cell_id: t for t in plan.trials}
    assert set(by_cell) == {
        "clock=on-time,gap=10ms",
        "clock=on-time,gap=100ms",
        "clock=n2-500ms,gap=10ms",
        "clock=n2-500ms,gap=100ms",
    }
    skewed = by_cell["clock=n2-500ms,gap=100ms"]
    assert skewed.clock == {2: -500.0}
    assert skewed.lww == LwwProbe(keys=20, gap_ms=100.0, client_timestamps=False, good=1, skewed=2)
    assert by_cell["clock=on-time,gap=10ms"].clock == {}


def test_a_clock_in_the_section_applies_to_every_trial() -> None:
    data = _data(factors={"lww.timestamps": ["server", "client"]})
    data["cluster"]["clock"] = {3: "-1s"}
    plan = expand(_load(data))
    assert {tuple(t.clock.items()) for t in plan.trials} == {((3, -1000.0),)}
    assert {t.lww.skewed for t in plan.trials if t.lww} == {3}
    assert plan.cells[0].id == "timestamps=server"


def test_the_slug_of_a_clock_level() -> None:
    factor = next(f for f in expand(_load(_data())).cells)  # a cell exists
    assert factor.labels["cluster.clock"] == "on-time"
    from casslab.experiment.file.experiment_model import factors_of

    clock = factors_of(_load(_data()))[0]
    assert level_slug(clock, {2: "-500ms", 3: "+20ms"}) == "n2-500ms_n3+20ms"


def test_mistakes_are_named_before_anything_starts(monkeypatch: pytest.MonkeyPatch) -> None:
    # the file is checked here, not this machine's JDK (which cannot run the 4.0.11 below:
    # that refusal has its own tests, tests/experiment/file/test_jdk_checks.py)
    monkeypatch.setattr(jdk_checks, "_found_jdk", lambda: None)
    unit = _problems(_data(factors={"cluster.clock": [{}, {2: -500}]}))
    assert (
        "factors.cluster.clock[1]: clock offset -500 of node 2: give a number with its unit" in unit
    )
    missing = _problems(_data(factors={"cluster.clock": [{}, {4: "-500ms"}]}))
    assert "cluster.clock: node(s) 4 do not exist in cell clock=n4-500ms" in missing
    gap = _problems(_data(factors={"lww.gap": ["soon"]}))
    assert "factors.lww.gap[0]: expected a gap such as 100ms or 1s, got 'soon'" in gap
    one = _problems(_data(cluster={"nodes": 1, "config": {"auto_snapshot": False}}, factors={}))
    assert "the lww probe needs two nodes" in one
    same = _problems(_data(lww={"node": 1, "good": 1}))
    assert "lww: the good node and the skewed node are both 1" in same
    old = _data(factors={"cluster.clock": [{}, {2: "-5ms"}]})
    old["cluster"]["version"] = "4.0.11"
    assert "Cassandra 4.0.11 has no pluggable clock" in _problems(old)
    kpis = _problems(_data(factors={}, lww=None))
    assert "kpis[0]: lww_lost_pct needs the lww probe: add an lww section" in kpis
    assert "kpis[1]: expired_messages is counted with cluster.clock or the lww probe only" in kpis


@pytest.mark.parametrize(
    ("clocks", "probes", "jumps", "needed"),
    [
        ([{}, {}], False, False, False),  # no skew anywhere: stock nodes
        ([{}, {2: -500.0}], False, False, True),  # a cluster.clock level skews
        ([{}], True, False, True),  # the lww probe steps a clock
        ([{}], False, True, True),  # a clock-jump fault steps one
        ([], False, False, False),
    ],
)
def test_a_run_starts_casslabs_clock_only_when_it_skews_or_steps_one(
    clocks: list[dict[int, float]], probes: bool, jumps: bool, needed: bool
) -> None:
    assert needs_injectable_clock(clocks, probes=probes, clock_jumps=jumps) is needed
