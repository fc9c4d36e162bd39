"""``casslab stress print dist=DIST``: a distribution's kind, bounds and percentiles.

cassandra-stress's ``print`` (``SettingsMisc.printDistribution``) prints, for 10%, 20%, ...
90%, 95%, 99% and 100% of the samples, the largest value that share of samples reaches and
that value as a percentage of the distribution's maximum. casslab prints the same table,
computed from the definition of each distribution as casslab's engine draws it
(``engine/src/dist.rs``), not by sampling. Pure: text in, lines out.
"""

from __future__ import annotations

import math
import textwrap
from statistics import NormalDist

from casslab.engine_contract.workload_spec import DistKind, Distribution
from casslab.errors import WorkloadSyntaxError
from casslab.load.stress.dist import DIST_FORMS, parse_distribution

SAMPLE_SHARES = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99, 1.0)


def inverse_cumulative(dist: Distribution, share: float) -> int:
    """The smallest value v with P(X <= v) >= share, X drawn as the engine draws it."""
    low, high = dist.min, dist.max
    if dist.kind is DistKind.FIXED or low == high:
        return low
    if share >= 1.0:
        return high
    span = high - low + 1
    if dist.kind in (DistKind.UNIFORM, DistKind.SEQ):
        # uniform over the span; SEQ visits each value once per cycle
        return low + max(math.ceil(share * span) - 1, 0)
    if dist.kind is DistKind.EXP:
        # engine: min + floor(-mean * ln(1 - u)), capped at max
        mean = dist.mean if dist.mean is not None else max((high - low) / math.log(1000), 1e-9)
        step = max(math.ceil(-mean * math.log1p(-share)) - 1, 0)
        return min(low + step, high)
    if dist.kind is DistKind.GAUSSIAN:
        # engine: round(mean + z * stdev), clamped to min..max
        mean = dist.mean if dist.mean is not None else (low + high) / 2
        stdev = dist.stdev if dist.stdev is not None else (high - low) / 6
        if stdev <= 0:
            return min(max(round(mean), low), high)
        point = NormalDist(mean, stdev).inv_cdf(share) - 0.5
        return min(max(math.ceil(point), low), high)
    raise WorkloadSyntaxError(
        f"print: {dist.kind.value} distributions are not a cassandra-stress form; "
        f"accepted: {DIST_FORMS}"
    )


def describe(dist: Distribution) -> str:
    """One line: the kind, bounds and parameters casslab will draw with."""
    if dist.kind is DistKind.FIXED:
        return f"FIXED: always {dist.min}"
    text = f"{dist.kind.value.upper()} over {dist.min}..{dist.max}"
    if dist.kind is DistKind.GAUSSIAN:
        mean = dist.mean if dist.mean is not None else (dist.min + dist.max) / 2
        stdev = dist.stdev if dist.stdev is not None else (dist.max - dist.min) / 6
        text += f", mean {mean:g}, stdev {stdev:g} (values outside the bounds are clamped)"
    elif dist.kind is DistKind.EXP:
        mean = dist.mean or max((dist.max - dist.min) / math.log(1000), 1e-9)
        text += f", min + exponential of mean {mean:.4g} (99.9% inside; the rest at max)"
    elif dist.kind is DistKind.SEQ:
        text += ", in order by cycle number, then again from min"
    return text


def print_lines(text: str) -> list[str]:
    """The lines ``casslab stress print dist=TEXT`` prints."""
    if not text:
        raise WorkloadSyntaxError(
            f"print: write print dist=DIST, e.g. dist=UNIFORM(1..100); accepted: {DIST_FORMS}"
        )
    dist = parse_distribution(text, what=f"print dist={text}")
    top = inverse_cumulative(dist, 1.0)
    lines = [
        *textwrap.wrap(describe(dist), 80, subsequent_indent="  "),
        "Exact percentiles from the distribution's definition (not sampled).",
        "",
        "% of samples    Range       % of total",
    ]
    for share in SAMPLE_SHARES:
        value = inverse_cumulative(dist, share)
        of_total = 100.0 * value / top if top else 100.0
        lines.append(f"{share * 100:<16.1f}{value:<12d}{of_total:12.1f}")
    return lines
