"""The NTP estimate of a node's clock offset from a burst of exchanges."""

from __future__ import annotations

import pytest

from casslab.metrics.clock_offset import ClockReading, Exchange, estimate


def test_the_quickest_exchange_gives_the_offset() -> None:
    burst = [
        Exchange(t0=1000.0, server=1530.0, t1=1040.0),  # slow: queued on the way back
        Exchange(t0=2000.0, server=2501.0, t1=2002.0),  # quickest
        Exchange(t0=3000.0, server=3505.0, t1=3010.0),
    ]
    assert estimate(burst) == ClockReading(offset_ms=500.0, delay_ms=2.0)


def test_a_clock_behind_gives_a_negative_offset() -> None:
    reading = estimate([Exchange(t0=10_000.0, server=9_500.5, t1=10_001.0)])
    assert reading.offset_ms == pytest.approx(-500.0)
    assert reading.delay_ms == 1.0


def test_no_exchange_no_estimate() -> None:
    with pytest.raises(ValueError, match="at least one exchange"):
        estimate([])
