"""A flame graph as one self-contained SVG (pure: stacks in, text out; no script, no
network): the root at the bottom, each frame as wide as its inclusive weight, a tooltip
(``<title>``) with its weight and share. Given a baseline, a differential graph: the
cell's frames coloured by how their share moved against the baseline's (red grew, blue
shrank, the deepest colour the largest move), in the manner of Brendan Gregg's
differential flame graphs."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from html import escape

from casslab.record import Record
from casslab.report.flame.diff import path_shares

WIDTH_PX = 1200
ROW_PX = 16
MIN_WIDTH = 0.001  # frames narrower than 0.1% of the graph are left out
CHAR_PX = 7  # the width of a label's character at 11 px


class Box(Record):
    """One frame of the graph: its call path, where it sits and how wide it is."""

    path: str
    frame: str
    depth: int
    x: float  # 0..1 of the graph's width
    width: float  # 0..1
    weight: int


def layout(stacks: Mapping[str, int], min_width: float = MIN_WIDTH) -> list[Box]:
    """Every frame at least ``min_width`` wide, children left to right by name."""
    total = sum(stacks.values())
    if total <= 0:
        return []
    tree: dict[str, dict[str, int]] = {}  # path -> child frame -> weight
    for stack, count in stacks.items():
        frames = stack.split(";")
        for depth in range(len(frames)):
            parent = ";".join(frames[:depth])
            children = tree.setdefault(parent, {})
            children[frames[depth]] = children.get(frames[depth], 0) + count
    boxes: list[Box] = []

    def place(parent: str, depth: int, x: float) -> None:
        for frame in sorted(tree.get(parent, {})):
            weight = tree[parent][frame]
            width = weight / total
            path = f"{parent};{frame}" if parent else frame
            if width >= min_width:
                boxes.append(
                    Box(path=path, frame=frame, depth=depth, x=x, width=width, weight=weight)
                )
                place(path, depth + 1, x)
            x += width

    place("", 0, 0.0)
    return boxes


def _warm(frame: str) -> str:
    """A stable warm colour per frame name (the classic flame-graph palette)."""
    digest = hashlib.sha1(frame.encode()).digest()
    return f"rgb(230,{80 + digest[0] % 130},{digest[1] % 55})"


def _diverging(change: float, largest: float) -> str:
    """Red for a share that grew, blue for one that shrank, white for no change."""
    strength = 0.0 if largest <= 0 else min(1.0, abs(change) / largest)
    fade = round(255 * (1 - strength))
    return f"rgb(255,{fade},{fade})" if change > 0 else f"rgb({fade},{fade},255)"


def flame_svg(
    stacks: Mapping[str, int],
    *,
    title: str,
    unit: str = "samples",
    baseline: Mapping[str, int] | None = None,
) -> str:
    """The SVG of ``stacks``; with ``baseline``, coloured by each path's change of share
    (percentage points) against it."""
    boxes = layout(stacks)
    total = sum(stacks.values())
    depth = max((b.depth for b in boxes), default=0) + 1
    height = (depth + 2) * ROW_PX
    changes: dict[str, float] = {}
    if baseline is not None:
        before, after = path_shares(baseline), path_shares(stacks)
        changes = {b.path: after.get(b.path, 0.0) - before.get(b.path, 0.0) for b in boxes}
    largest = max((abs(c) for c in changes.values()), default=0.0)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH_PX}" height="{height}" '
        f'viewBox="0 0 {WIDTH_PX} {height}" font-family="monospace" font-size="11">',
        f'<text x="4" y="{ROW_PX - 4}">{escape(title)} ({total} {escape(unit)})</text>',
    ]
    for box in boxes:
        x, w = box.x * WIDTH_PX, box.width * WIDTH_PX
        y = height - (box.depth + 1) * ROW_PX
        share = 100.0 * box.weight / total
        tip = f"{box.frame}: {box.weight} {unit}, {share:.2f}%"
        fill = _warm(box.frame)
        if baseline is not None:
            change = changes[box.path]
            tip += f", {change:+.2f} points against the baseline"
            fill = _diverging(change, largest)
        label = box.frame if len(box.frame) * CHAR_PX < w - 4 else box.frame[: int(w / CHAR_PX) - 2]
        parts.append(
            f'<g><title>{escape(tip)}</title><rect x="{x:.1f}" y="{y}" width="{w:.1f}" '
            f'height="{ROW_PX - 1}" fill="{fill}"/>'
            + (
                f'<text x="{x + 2:.1f}" y="{y + ROW_PX - 4}">{escape(label)}</text>'
                if len(label) > 2
                else ""
            )
            + "</g>"
        )
    parts.append("</svg>")
    return "\n".join(parts) + "\n"
