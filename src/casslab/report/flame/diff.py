"""What changed between two profiles (pure): each frame's share of the whole, inclusive
(a frame counts the weight of every stack it is on, once per stack), in a baseline and in
a cell (each several profiles :func:`merged`), and the change in percentage points -- by
method (:func:`method_changes`, the table) and by call path (:func:`path_shares`, the
differential graph's colours)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from casslab.record import Record


class FrameChange(Record):
    """One frame's inclusive share (% of the profile's weight) in both profiles."""

    frame: str
    baseline_pct: float
    cell_pct: float

    @property
    def change_pts(self) -> float:
        return self.cell_pct - self.baseline_pct


def merged(profiles: Iterable[Mapping[str, int]]) -> dict[str, int]:
    """Several profiles as one (a cell's nodes and iterations): weights added per stack.
    Compare cells merged from the same number of nodes and iterations, or compare shares
    (as everything here does), which do not depend on the number."""
    out: dict[str, int] = {}
    for stacks in profiles:
        for stack, count in stacks.items():
            out[stack] = out.get(stack, 0) + count
    return out


def _total(stacks: Mapping[str, int]) -> int:
    return sum(stacks.values())


def method_shares(stacks: Mapping[str, int]) -> dict[str, float]:
    """Each frame's inclusive share, % of the total weight (recursion counted once)."""
    total = _total(stacks)
    weight: dict[str, int] = {}
    for stack, count in stacks.items():
        for frame in set(stack.split(";")):
            weight[frame] = weight.get(frame, 0) + count
    return {f: 100.0 * w / total for f, w in weight.items()} if total else {}


def path_shares(stacks: Mapping[str, int]) -> dict[str, float]:
    """Each call path's inclusive share (``a``, ``a;b``, ...), % of the total weight."""
    total = _total(stacks)
    weight: dict[str, int] = {}
    for stack, count in stacks.items():
        frames = stack.split(";")
        for depth in range(1, len(frames) + 1):
            path = ";".join(frames[:depth])
            weight[path] = weight.get(path, 0) + count
    return {p: 100.0 * w / total for p, w in weight.items()} if total else {}


def method_changes(
    baseline: Mapping[str, int], cell: Mapping[str, int], *, min_change_pts: float = 0.0
) -> list[FrameChange]:
    """The frames whose inclusive share moved by at least ``min_change_pts`` points, the
    largest move first (ties by name)."""
    before, after = method_shares(baseline), method_shares(cell)
    changes = [
        FrameChange(frame=f, baseline_pct=before.get(f, 0.0), cell_pct=after.get(f, 0.0))
        for f in sorted(set(before) | set(after))
    ]
    moved = [c for c in changes if abs(c.change_pts) >= min_change_pts]
    return sorted(moved, key=lambda c: (-abs(c.change_pts), c.frame))
