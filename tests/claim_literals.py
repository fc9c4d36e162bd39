"""A study's claims about conftest.py's synthetic run (tests/report): LCS ~20% faster than
STCS, p99 alike; for the report's Claims table and the studies gallery."""

from __future__ import annotations

from typing import Any

CLAIMS: list[dict[str, Any]] = [
    {
        "says": "LCS sustains more operations per second than STCS",
        "source": "seed 001, Table 2",
        "seed_value": {"a": 2358, "b": 2350, "unit": "op/s"},
        "compare": {"a": {"table.compaction": "LCS"}, "b": {"table.compaction": "STCS"}},
        "kpi": "op_rate",
        "direction": "higher",
    },
    {
        "says": "LCS answers faster at the 99th percentile",
        "source": "seed 001, Figure 5",
        "seed_value": {"a": 10.0, "b": 12.0, "unit": "ms"},
        "compare": {"a": {"table.compaction": "LCS"}, "b": {"table.compaction": "STCS"}},
        "kpi": "latency_p99_ms",
        "direction": "lower",
    },
    {
        "says": "DTCS sustains the most operations",
        "source": "seed 001, Table 2",
        "not_testable": "DateTieredCompactionStrategy does not exist in Cassandra 5.0",
    },
]
