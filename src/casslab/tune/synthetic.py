"""A synthetic evaluator with a known optimum and interactions, for the tests and
``bench/tune_search.py``: no Cassandra, figures from a formula shaped like seed 000's
finding (each knob alone loses; together they win).

Over a space of memtable_heap_space (64..1024 MiB, log), concurrent_compactors (1..8),
memtable_cleanup_threshold (0.05..0.5) and the compaction strategy (STCS with
min_threshold, LCS with sstable_size_in_mb): a big memtable pays only with many
compactors and each alone costs, LCS pays only with many compactors and sstables near
240 MiB, the cleanup threshold is best near 0.2; p99 grows with a big memtable and few
compactors. Optimum 16,800 op/s; the default (64 MiB, 1, 0.11, STCS) 9,820 op/s.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping

from casslab.tune.spec import (
    CompactionParam,
    ParamValue,
    RangeKind,
    RangeParam,
    Space,
    StrategySpace,
    Target,
)
from casslab.tune.tuning_result import Measurement

OPTIMUM = 16_800.0  # heap 1024 MiB, 8 compactors, LCS with 240 MiB sstables, threshold 0.2
DEFAULT_RATE = 9_820.0  # heap 64 MiB, 1 compactor, STCS, threshold 0.11


def _range(name: str, kind: RangeKind, low: float, high: float, **more: object) -> RangeParam:
    key = name.rsplit(".", 1)[-1]
    target = Target.TABLE if name.startswith("table.") else Target.CONFIG
    return RangeParam.model_validate(
        {"name": name, "target": target, "keys": (key,), "kind": kind, "low": low, "high": high}
        | more
    )


SPACE = Space(
    params=(
        _range(
            "config.memtable_heap_space", RangeKind.SIZE, 64, 1024, log=True, unit="MiB", default=64
        ),
        _range("config.concurrent_compactors", RangeKind.INT, 1, 8, default=1),
        _range("config.memtable_cleanup_threshold", RangeKind.FLOAT, 0.05, 0.5, default=0.11),
        CompactionParam(
            strategies=(
                StrategySpace(
                    strategy="SizeTieredCompactionStrategy",
                    alias="STCS",
                    options=(_range("table.compaction.STCS.min_threshold", RangeKind.INT, 2, 32),),
                ),
                StrategySpace(
                    strategy="LeveledCompactionStrategy",
                    alias="LCS",
                    options=(
                        _range("table.compaction.LCS.sstable_size_in_mb", RangeKind.INT, 80, 320),
                    ),
                ),
            ),
            default="STCS",
        ),
    )
)


def synthetic_rate(params: Mapping[str, ParamValue]) -> tuple[float, float]:
    """(op rate, p99 ms) of a configuration (see the module docstring)."""
    h = math.log2(float(params["config.memtable_heap_space"] or 64) / 64) / 4  # 0..1
    c = (float(params["config.concurrent_compactors"] or 1) - 1) / 7  # 0..1
    t = float(params["config.memtable_cleanup_threshold"] or 0.11)
    rate = 10_000 * (1 + 1.2 * h * c - 0.3 * h - 0.3 * c)
    if params.get("table.compaction") == "LCS":
        size = float(params.get("table.compaction.LCS.sstable_size_in_mb") or 160)
        rate *= 1 + 0.1 * c - 0.05 - abs(size - 240) / 2400
    rate *= 1 - abs(t - 0.2) * 0.2
    return rate, 20 + 30 * h * (1 - c)


class Synthetic:
    """The fake evaluator: the synthetic figures with +-1% noise drawn from the label."""

    def __init__(self, interrupt_at: int | None = None) -> None:
        self.calls: list[tuple[str, dict[str, ParamValue]]] = []
        self.interrupt_at = interrupt_at

    def evaluate(self, params: Mapping[str, ParamValue], label: str) -> Measurement:
        self.calls.append((label, dict(params)))
        if self.interrupt_at is not None and len(self.calls) == self.interrupt_at:
            raise KeyboardInterrupt
        rate, p99 = synthetic_rate(params)
        draw = int(hashlib.sha256(label.encode()).hexdigest()[:8], 16) / 0xFFFFFFFF
        return Measurement(
            label=label,
            params=dict(params),
            finished=True,
            op_rate=rate * (0.99 + 0.02 * draw),
            p99_ms=p99,
            errors=0,
        )
