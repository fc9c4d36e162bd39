"""The throughput model t(n) (seed 003's eq. 6-7), the counts meeting a minimum, and the
nodes a tenant's data needs (eq. 12), against values worked out by hand."""

from __future__ import annotations

import random
import time
from fractions import Fraction

import pytest

from casslab.capacity.plan_check import interpolated_ops
from casslab.capacity.throughput import allowed_counts, nodes_for_data, throughput_at

SEED_A_MICRO = {3: 2795.0, 6: 7899.0}  # seed 003, tables 16 and 17, workload A on t2.micro


@pytest.mark.parametrize(
    ("points", "nodes", "expected"),
    [
        (SEED_A_MICRO, 0, Fraction(0)),
        (SEED_A_MICRO, 1, Fraction(2795, 3)),  # on the line from (0, 0) to (3, 2795)
        (SEED_A_MICRO, 3, Fraction(2795)),
        (SEED_A_MICRO, 4, Fraction(2795 + 1701) + Fraction(1, 3)),  # slope 5104/3
        (SEED_A_MICRO, 6, Fraction(7899)),
        (SEED_A_MICRO, 7, Fraction(7899) + Fraction(5104, 3)),  # past 6: the last slope
        ({4: 1000.0}, 8, Fraction(2000)),  # one point: the line through (0, 0)
        ({2: 1000.0, 4: 600.0}, 3, Fraction(800)),  # falling
        ({2: 1000.0, 4: 600.0}, 7, Fraction(0)),  # 600 - 200 * 3 = 0
        ({2: 1000.0, 4: 600.0}, 9, Fraction(0)),  # never below 0
        ({1: 0.1, 2: 0.3}, 2, Fraction(3, 10)),  # decimals as written
    ],
)
def test_throughput_is_the_line_through_zero_and_the_points(
    points: dict[int, float], nodes: int, expected: Fraction
) -> None:
    assert throughput_at(points, nodes) == expected
    assert interpolated_ops(points, nodes) == pytest.approx(float(expected))  # the checker's


@pytest.mark.parametrize(
    ("points", "min_ops", "most", "expected"),
    [
        (SEED_A_MICRO, 8000, 20, [(7, 20)]),  # t(6) = 7899 < 8000 <= t(7) = 9600.3
        (SEED_A_MICRO, 7899, 8, [(6, 8)]),  # met exactly at a measured point
        (SEED_A_MICRO, 0, 3, [(1, 3)]),
        (SEED_A_MICRO, 1e9, 50, []),
        ({2: 1000.0, 4: 600.0}, 700, 10, [(2, 3)]),  # t(1) = 500, t(4) = 600
        ({2: 1000.0, 4: 600.0, 6: 1200.0}, 900, 10, [(2, 2), (5, 10)]),  # t(5) = 900: two runs
    ],
)
def test_allowed_counts_are_the_runs_meeting_the_minimum(
    points: dict[int, float], min_ops: float, most: int, expected: list[tuple[int, int]]
) -> None:
    assert allowed_counts(points, min_ops, most) == expected


@pytest.mark.parametrize(
    ("rf", "data_gib", "heap_gib", "expected"),
    [
        (3, 1, 0.5, 6),  # seed 003 case 4: B and C need 6 t2.micro nodes for their data
        (3, 1, 1, 3),
        (3, 1, 2, 2),  # fewer than rf: the replicas (eq. 17) ask for more
        (3, 0.1, 0.5, 1),
        (3, 3, 0.5, 18),
        (1, 0.3, 0.1, 3),  # 0.3 / 0.1 is 2.9999999999999996 in binary floating point
        (3, 0.7, 0.1, 21),
        (2, 0, 0.5, 0),
    ],
)
def test_nodes_for_data_hold_rf_copies_in_the_heaps(
    rf: int, data_gib: float, heap_gib: float, expected: int
) -> None:
    assert nodes_for_data(rf, data_gib, heap_gib) == expected


def _counts_by_definition(
    points: dict[int, float], min_ops: float, most: int
) -> list[tuple[int, int]]:
    """Every count tried one by one against t(n): the definition the fast one solves."""
    runs: list[tuple[int, int]] = []
    for nodes in range(1, most + 1):
        if throughput_at(points, nodes) < Fraction(repr(min_ops)):
            continue
        if runs and runs[-1][1] == nodes - 1:
            runs[-1] = (runs[-1][0], nodes)
        else:
            runs.append((nodes, nodes))
    return runs


def test_allowed_counts_agree_with_the_definition_on_random_curves() -> None:
    generator = random.Random(38)
    for _ in range(400):
        counts = sorted(generator.sample(range(1, 30), generator.randint(1, 5)))
        points = {n: float(generator.choice([0, generator.randint(0, 5000)])) for n in counts}
        min_ops = generator.choice([0.0, float(generator.randint(1, 6000)), 1234.5])
        most = generator.randint(0, 60)
        assert allowed_counts(points, min_ops, most) == _counts_by_definition(
            points, min_ops, most
        ), (points, min_ops, most)


def test_allowed_counts_of_a_million_nodes_take_no_time() -> None:
    started = time.monotonic()
    assert allowed_counts(SEED_A_MICRO, 8000, 1_000_000) == [(7, 1_000_000)]
    assert time.monotonic() - started < 0.1
