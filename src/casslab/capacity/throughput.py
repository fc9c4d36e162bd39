"""The throughput model t(n) of seed 003 (its eq. 6 and 7), in exact arithmetic.

Eq. 6 (rebuilt; the seed's prose: "the throughput for a particular Cassandra virtual
datacentre serving requests of the type l_i and running on a specific virtual machine type
j can be represented with the linear segment with the slope ... for n_{k-1} <= n_i <= n_k"):
t is piecewise linear in the number of virtual nodes n, through (0, 0) and the measured
points (n_1, T_1) < ... < (n_K, T_K)::

    t(n) = T_{k-1} + (T_k - T_{k-1}) / (n_k - n_{k-1}) * (n - n_{k-1}),  n_{k-1} <= n <= n_k
    t(n) = T_K + (T_K - T_{K-1}) / (n_K - n_{K-1}) * (n - n_K),          n > n_K

with (n_0, T_0) = (0, 0) (the seed starts at n_0 = 1; the issue's (0, 0) makes one point
enough), and never below 0 ops/s. Eq. 7: T_i(x) = t(n_i), the tenant's throughput on the
n_i nodes of its type. t need not be concave nor increasing (seed 003's own table is
convex for t2.micro, and falls from 3 to 6 nodes for several cells of its table 22), so
the planner does not rely on either: since n is an integer with a known bound, the counts
that meet a minimum are computed here, as integer intervals (:func:`allowed_counts`).

Numbers are taken as the decimals the user wrote (``Fraction(repr(x))``), so ``0.1`` is
1/10 and a minimum met exactly at a measured point is met.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping
from fractions import Fraction


def exact(value: float) -> Fraction:
    """``value`` as the decimal it prints as: ``exact(0.1) == Fraction(1, 10)``."""
    return Fraction(repr(value))


Curve = list[tuple[int, Fraction]]


def _curve(points: Mapping[int, float]) -> Curve:
    if not points:
        raise ValueError("throughput: no measured point")
    return [(0, Fraction(0)), *sorted((n, exact(ops)) for n, ops in points.items())]


def _at(curve: Curve, nodes: int) -> Fraction:
    for (n_left, t_left), (n_right, t_right) in itertools.pairwise(curve):
        if nodes <= n_right:
            slope = (t_right - t_left) / (n_right - n_left)
            return max(Fraction(0), t_left + slope * (nodes - n_left))
    (n_left, t_left), (n_last, t_last) = curve[-2], curve[-1]
    slope = (t_last - t_left) / (n_last - n_left)
    return max(Fraction(0), t_last + slope * (nodes - n_last))


def throughput_at(points: Mapping[int, float], nodes: int) -> Fraction:
    """t(nodes), eq. 6: the piecewise-linear interpolation of ``points`` through (0, 0),
    extended beyond the last point with the last segment's slope, floored at 0."""
    if nodes < 0:
        raise ValueError(f"throughput_at: nodes must be >= 0, got {nodes}")
    return _at(_curve(points), nodes)


def _segment_counts(
    left: tuple[int, Fraction], slope: Fraction, floor: Fraction, low: int, high: int
) -> tuple[int, int] | None:
    """The integers ``low..high`` where the line through ``left`` of ``slope`` is at least
    ``floor`` (> 0), as one interval (a line crosses a level once), or None."""
    n_left, t_left = left
    if slope == 0:
        return (low, high) if t_left >= floor else None
    crossing = n_left + (floor - t_left) / slope  # where the line meets the floor
    if slope > 0:
        low = max(low, math.ceil(crossing))
    else:
        high = min(high, math.floor(crossing))
    return (low, high) if low <= high else None


def allowed_counts(points: Mapping[int, float], min_ops: float, most: int) -> list[tuple[int, int]]:
    """The node counts 1..``most`` with t(n) >= ``min_ops``, as maximal integer intervals
    ``[(low, high), ...]`` in increasing order (the throughput constraint, eq. 11, as the
    set of counts it allows; empty if no count in range meets it). Solved on each linear
    segment of t, exactly: as fast for ``most`` = 10^6 as for 10."""
    floor = exact(min_ops)
    curve = _curve(points)
    if most < 1:
        return []
    if floor <= 0:
        return [(1, most)]  # t is floored at 0, so every count meets it
    pieces: list[tuple[int, int]] = []
    segments = list(itertools.pairwise(curve))
    for index, ((n_left, t_left), (n_right, t_right)) in enumerate(segments):
        slope = (t_right - t_left) / (n_right - n_left)
        low = max(1, n_left + 1 if index else 1)
        last = index == len(segments) - 1
        high = most if last else min(most, n_right)
        if low > high:
            continue
        piece = _segment_counts((n_left, t_left), slope, floor, low, high)
        if piece is not None:
            pieces.append(piece)
    runs: list[tuple[int, int]] = []
    for low, high in pieces:
        if runs and runs[-1][1] >= low - 1:
            runs[-1] = (runs[-1][0], max(runs[-1][1], high))
        else:
            runs.append((low, high))
    return runs


def nodes_for_data(rf: int, data_gib: float, heap_gib: float) -> int:
    """Eq. 12 (rebuilt): the nodes a tenant's data needs on a type, ceil(D_i r_i / heapsize_j).

    The seed: "the heap size determines the size of the data any Cassandra virtual node
    can store in main memory", and the constraint makes "the number of virtual nodes
    sufficient to handle the dataset by each virtual node with the replication factor D_i":
    the D_i copies of r_i GiB must fit in the nodes' heaps."""
    return math.ceil(rf * exact(data_gib) / exact(heap_gib))
