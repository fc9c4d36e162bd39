"""``casslab capacity size``, the pure rule: node counts worked out by hand from t(n), the
line through (0, 0) and the measured points, drawn through each point's CI low, mean and
CI high (Student t, 3 iterations: half-width t(0.975, 2) s / sqrt(3) = 2.4841 s)."""

from __future__ import annotations

import pytest

from casslab.analysis.analysis_records import TrialKpis
from casslab.capacity.size import SizeOption, check_target, size_nodes, smallest_nodes
from casslab.capacity.throughput_fit import RunTrials
from casslab.errors import ConfigError


@pytest.mark.parametrize(
    ("values", "ops", "rf", "nodes"),
    [
        # the planner's t2.small row: t(4) = 7989 < 8000 <= t(5) = 9614
        ({3: 6364, 6: 11239}, 8000, 3, 5),
        # past 6 the last slope, 1701.33/node: t(7) = 9600.3
        ({3: 2795, 6: 7899}, 8000, 3, 7),
        # met exactly at an extrapolated count: t(11) = 3000 + 7 x 1000
        ({2: 1000, 4: 3000}, 10000, 3, 11),
        # one point: the line through the origin, 1000 ops/s a node; rf is the floor
        ({3: 3000}, 1000, 1, 1),
        ({3: 3000}, 1000, 5, 5),
        # falling: 3 nodes meet it, 4 too (4666.7), 5 do not (4333.3) and more never will
        ({3: 5000, 6: 4000}, 4500, 3, 3),
        ({3: 5000, 6: 4000}, 4500, 4, 4),
        ({3: 5000, 6: 4000}, 4500, 5, None),
        # flat past the last point, below the target
        ({3: 3000, 6: 3000}, 3001, 3, None),
    ],
)
def test_smallest_nodes(values: dict[int, float], ops: float, rf: int, nodes: int | None) -> None:
    assert smallest_nodes(values, ops, rf) == nodes


def _trial(cell: str, iteration: int, op_rate: float, **levels: str) -> TrialKpis:
    p99 = levels.pop("p99", None)
    kpis: dict[str, float | None] = {"op_rate": op_rate}
    if p99 is not None:
        kpis["latency_p99_ms"] = float(p99)
    return TrialKpis(
        trial_id=f"{cell}/{iteration}", cell_id=cell, iteration=iteration, factors=levels,
        kpis=kpis,
    )  # fmt: skip


def _point(size: str, nodes: int, rates: tuple[float, ...], **levels: str) -> list[TrialKpis]:
    at = {"workload": "ycsb-a", "cluster.node_size": size, "nodes": str(nodes), **levels}
    cell = f"{size}-{nodes}-{levels.get('threads', '')}"
    return [_trial(cell, i, rate, **at) for i, rate in enumerate(rates, start=1)]


def _only(answer_options: tuple[SizeOption, ...]) -> SizeOption:
    (option,) = answer_options
    return option


def test_three_curves_give_three_counts_and_say_when_they_extrapolate() -> None:
    """Means 2800 at 3 and 7900 at 6 (s = 200 both: CI -/+ 496.8), 1700 ops/s a node.
    Target 7800: t_mean(6) = 7900 gives 6; t_high(5) = 3296.8 + 2 x 1700 = 6696.8 < 7800
    <= t_high(6) = 8396.8 gives 6; t_low(6) = 7403.2 < 7800 <= t_low(7) = 9103.2 gives 7,
    one more than measured."""
    trials = _point("t2.micro", 3, (2600, 2800, 3000)) + _point("t2.micro", 6, (7700, 7900, 8100))
    option = _only(size_nodes([RunTrials("r", trials)], "ycsb-a", 7800, 3).options)
    assert (option.nodes_confident, option.nodes_expected, option.nodes_optimistic) == (7, 6, 6)
    assert option.extrapolated is True
    assert option.largest_measured_nodes == 6
    assert any("extrapolated: 7 node(s)" in reason for reason in option.reasons)
    low = option.points[1].throughput.ci_low
    assert low == pytest.approx(7900 - 4.302653 * 200 / 3**0.5)
    within = _only(size_nodes([RunTrials("r", trials)], "ycsb-a", 7000, 3).options)
    counts = (within.nodes_confident, within.nodes_expected, within.nodes_optimistic)
    assert (*counts, within.extrapolated) == (6, 6, 6, False)


def test_the_p99_slo_picks_the_group_and_says_what_it_left_out() -> None:
    """At 3 nodes, 64 threads do 3000 ops/s at p99 20 ms, 16 threads 2000 at 5 ms, and 8
    threads did not measure a p99. With --p99 10ms only 16 threads count: 667 ops/s a node,
    so 4000 ops/s need 6 nodes (t(6) = 4000); without an SLO 64 threads do: 4."""
    trials = _point("t2.micro", 3, (3000, 3000), threads="64", p99="20")
    trials += _point("t2.micro", 3, (2000, 2000), threads="16", p99="5")
    trials += _point("t2.micro", 3, (2500, 2500), threads="8")
    runs = [RunTrials("r", trials)]
    under = size_nodes(runs, "ycsb-a", 4000, 3, p99_slo_ms=10.0)
    option = _only(under.options)
    assert option.nodes_expected == 6
    (point,) = option.points
    assert (point.throughput.group, point.latency_p99_ms) == ("threads=16", 5.0)
    assert option.reasons[0] == (
        "left out over the p99 SLO of 10 ms: 3 nodes (threads=64): p99 20.0 ms; "
        "3 nodes (threads=8): no latency_p99_ms, the SLO unchecked"
    )
    assert _only(size_nodes(runs, "ycsb-a", 4000, 3).options).nodes_expected == 4


def test_a_size_with_no_group_under_the_slo_has_no_model() -> None:
    trials = _point("t2.micro", 3, (3000, 3000), p99="20") + _point("t2.small", 3, (5000, 5000))
    answer = size_nodes([RunTrials("r", trials)], "ycsb-a", 1000, 3, p99_slo_ms=10.0)
    micro, small = answer.options
    assert (micro.vm_type, micro.nodes_expected, micro.points) == ("t2.micro", None, ())
    assert "no group meets the p99 SLO" in micro.reasons[-1]
    assert small.nodes_expected is None  # no p99 measured: left out too
    assert "no latency_p99_ms, the SLO unchecked" in small.reasons[0]


def test_a_target_never_met_is_none_with_the_slope_that_says_why() -> None:
    """5000 at 3 nodes, 4000 at 6: the last slope is -333 ops/s a node."""
    trials = _point("t2.micro", 3, (4990, 5000, 5010)) + _point("t2.micro", 6, (3990, 4000, 4010))
    option = _only(size_nodes([RunTrials("r", trials)], "ycsb-a", 6000, 3).options)
    counts = (option.nodes_confident, option.nodes_expected, option.nodes_optimistic)
    assert counts == (None, None, None)
    assert option.extrapolated is False
    assert option.reasons[0] == (
        "t_mean never reaches 6000 ops/s: 4000 ops/s at 6 nodes, the largest measured, "
        "and a last slope of -333 ops/s per node after it"
    )


def test_one_iteration_gives_only_the_expected_count() -> None:
    trials = _point("t2.micro", 3, (2800,)) + _point("t2.micro", 6, (7900, 8100))
    option = _only(size_nodes([RunTrials("r", trials)], "ycsb-a", 7000, 3).options)
    counts = (option.nodes_confident, option.nodes_expected, option.nodes_optimistic)
    assert counts == (None, 6, None)
    assert option.reasons == (
        "no 95% CI at 3 nodes (n=1: a confidence interval needs at least 2 iterations): "
        "the band is undetermined, only the expected count is given",
    )


def test_lines_that_cross_past_the_measurements_are_flagged() -> None:
    """A wide CI at 3 nodes and a narrow one at 6: t_low climbs faster than t_mean past 6
    (2519.7 against 1700 ops/s a node), so far out it would ask for fewer nodes (11 against
    14): no confident count; t_high climbs slower, so it would ask for more: none either."""
    trials = _point("t2.micro", 3, (1800, 2800, 3800)) + _point("t2.micro", 6, (7890, 7900, 7910))
    option = _only(size_nodes([RunTrials("r", trials)], "ycsb-a", 20000, 3).options)
    assert (option.nodes_confident, option.nodes_expected) == (None, 14)
    assert option.reasons[-1].startswith(
        "the CI's lines cross beyond the measurements: do not trust the band; no 95%-confident"
    )


def test_a_low_line_that_reaches_where_the_mean_never_does_gives_no_count() -> None:
    """Measured on the scaled seed-003 run: t2.micro, workload C, 983 [446, 1519] at 3
    nodes and 945 [461, 1430] at 4: the mean falls past 4, the CI's low end rises: no
    count is 95% confident where the expected throughput never gets there."""
    trials = _point("t2.micro", 3, (940, 1026)) + _point("t2.micro", 4, (907, 983))
    option = _only(size_nodes([RunTrials("r", trials)], "ycsb-a", 2500, 3).options)
    assert (option.nodes_confident, option.nodes_expected) == (None, None)
    assert any("no 95%-confident count" in reason for reason in option.reasons)


@pytest.mark.parametrize(
    ("ops", "rf", "message"),
    [
        (0.0, 3, r"--ops 0: the target must be > 0 ops/s, e.g. --ops 50000"),
        (float("nan"), 3, r"--ops nan: the target must be > 0"),
        (1000.0, 0, r"--rf 0: the replication factor must be at least 1, e.g. --rf 3"),
    ],
)
def test_a_bad_target_is_refused(ops: float, rf: int, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        check_target(ops, rf)


def test_a_workload_not_measured_lists_those_that_are() -> None:
    runs = [RunTrials("r", _point("t2.micro", 3, (1000, 1100)))]
    with pytest.raises(
        ConfigError, match=r"--workload 'ycsb-b': not in the runs given; give one of theirs: ycsb-a"
    ):
        size_nodes(runs, "ycsb-b", 1000, 3)
