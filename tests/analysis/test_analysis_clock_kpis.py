"""Clock KPIs from the per-second clock metrics of each node, worked out by hand."""

from __future__ import annotations

import pandas as pd
import pytest

from casslab.analysis import kpis_from_metrics

N1, N2 = "127.0.0.1", "127.0.0.2"


def test_a_node_behind_and_one_on_time_give_the_mean_offset_magnitude() -> None:
    series = {
        (N1, "clock.offset_ms"): [1.0, -1.0, 2.0, -2.0],  # |.| mean 1.5
        (N2, "clock.offset_ms"): [-500.0, -502.0, -498.0, -500.0],  # |.| mean 500
        (N1, "clock.delay_ms"): [1.0, 2.0, 1.0, 2.0],  # mean 1.5
        (N2, "clock.delay_ms"): [3.0, 3.0, 3.0, 3.0],
    }
    frame = pd.DataFrame(
        [(float(t), n, m, v) for (n, m), vs in series.items() for t, v in enumerate(vs)],
        columns=["time", "node", "metric", "value"],
    )
    kpis = kpis_from_metrics(frame)
    assert kpis["clock_offset_abs_ms"] == pytest.approx((1.5 + 500.0) / 2)
    assert kpis["node1.clock_offset_abs_ms"] == pytest.approx(1.5)
    assert kpis["node2.clock_offset_abs_ms"] == pytest.approx(500.0)
    assert kpis["clock_delay_ms"] == pytest.approx((1.5 + 3.0) / 2)
    assert kpis["node2.clock_delay_ms"] == pytest.approx(3.0)
