"""A proportion with its confidence interval: Wilson's score interval, which keeps its
coverage near 0 and 1 (where a lost-update fraction usually is) and never leaves [0, 1]."""

from __future__ import annotations

import math

from scipy.stats import norm

from casslab.record import Record


class Proportion(Record):
    """``hits`` of ``n``: the fraction and its interval at ``confidence``."""

    hits: int
    n: int
    fraction: float
    low: float
    high: float
    confidence: float = 0.95


def wilson(hits: int, n: int, confidence: float = 0.95) -> Proportion:
    """Wilson's score interval of ``hits / n``."""
    if n < 1 or not 0 <= hits <= n:
        raise ValueError(f"a proportion needs 0 <= hits <= n and n >= 1 (got {hits} of {n})")
    z = float(norm.ppf(0.5 + confidence / 2))
    p = hits / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return Proportion(
        hits=hits,
        n=n,
        fraction=p,
        low=0.0 if hits == 0 else max(0.0, centre - half),
        high=1.0 if hits == n else min(1.0, centre + half),
        confidence=confidence,
    )
