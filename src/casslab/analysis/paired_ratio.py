"""The ratio of two variants measured in paired rounds (each round ran both, back to back):
the geometric mean of the rounds' own ratios b / a, with a Student-t 95 % interval on the
log ratios. Pairing takes out what drifts from round to round (the node's compactions,
the JIT, a neighbour on the machine), which a ratio of the two means would keep."""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence

from casslab.analysis.stats import t_quantile
from casslab.record import Record


class PairedRatio(Record):
    """b / a per round, their geometric mean and its interval (None below 2 usable rounds)."""

    per_round: tuple[float, ...]
    geometric_mean: float | None
    low: float | None
    high: float | None

    def line(self, name: str) -> str:
        each = ", ".join(f"{r:.3f}" for r in self.per_round)
        if self.geometric_mean is None or self.low is None or self.high is None:
            return f"{name}: per round {each} (an interval needs 2 rounds)"
        return (
            f"{name}: per round {each}; geometric mean {self.geometric_mean:.3f} "
            f"[{self.low:.3f}, {self.high:.3f}]"
        )


def paired_ratio(a: Sequence[float], b: Sequence[float], confidence: float = 0.95) -> PairedRatio:
    """b / a over rounds paired by position; a round where either value is not positive is
    left out (no ratio of it exists)."""
    ratios = tuple(y / x for x, y in zip(a, b, strict=True) if x > 0 and y > 0)
    if len(ratios) < 2:
        return PairedRatio(per_round=ratios, geometric_mean=None, low=None, high=None)
    logs = [math.log(r) for r in ratios]
    mean = statistics.fmean(logs)
    half = t_quantile(confidence, len(logs) - 1) * statistics.stdev(logs) / math.sqrt(len(logs))
    return PairedRatio(
        per_round=ratios,
        geometric_mean=math.exp(mean),
        low=math.exp(mean - half),
        high=math.exp(mean + half),
    )
