"""The pure helpers of bench/operations.py, on literal log lines and figures."""

from __future__ import annotations

import pytest

from script_files import script

bench = script("operations", folder="bench")

PLAN = "6a1c2f30-ad5e-11ef-9b1a-5d2e6c1f0a11"
OTHER = "7b2d3041-ad5e-11ef-9b1a-5d2e6c1f0a11"
LOG = f"""\
INFO  [main] 2026-11-28 11:50:00,100 StorageService.java:2015 - JOINING: Starting to bootstrap...
INFO  [main] 2026-11-28 11:50:01,250 StreamResultFuture.java:98 - [Stream #{PLAN}] Executing streaming plan for Bootstrap
INFO  [Stream-Deserializer-/127.0.121.1:7000-2b1f] 2026-11-28 11:50:03,000 StreamResultFuture.java:266 - [Stream #{OTHER}] All sessions completed
INFO  [Stream-Deserializer-/127.0.121.2:7000-9c3e] 2026-11-28 11:50:05,000 StreamResultFuture.java:266 - [Stream #{PLAN}] All sessions completed
INFO  [main] 2026-11-28 11:50:05,200 StorageService.java:2031 - Bootstrap completed for tokens [42]
"""  # noqa: E501


def test_the_stream_window_is_its_bootstrap_plan_from_start_to_completion() -> None:
    window = bench.stream_window(LOG)
    assert window is not None
    start, end = window
    assert end - start == pytest.approx(3.75)  # 11:50:01,250 -> 11:50:05,000, not 03,000


@pytest.mark.parametrize(
    "text",
    [
        "",
        LOG.splitlines()[0],  # joining, never streaming
        "\n".join(LOG.splitlines()[:3]),  # its plan never completed
    ],
)
def test_no_stream_window_without_both_lines_of_the_plan(text: str) -> None:
    assert bench.stream_window(text) is None


@pytest.mark.parametrize(
    ("bytes_streamed", "seconds", "expected"),
    [
        (30 * 1024 * 1024, 4.0, 7.5),
        (1024 * 1024, 0.5, 2.0),
        (0, 3.0, 0.0),
        (1024, 0.0, None),  # no time: undetermined, not a division by zero
    ],
)
def test_throughput_in_mib_per_second(
    bytes_streamed: int, seconds: float, expected: float | None
) -> None:
    assert bench.throughput_mib_s(bytes_streamed, seconds) == expected


@pytest.mark.parametrize(
    ("total_s", "streaming_s", "expected"),
    [
        (20.0, 5.0, (25.0, 75.0)),
        (23.4, 3.8, (pytest.approx(16.239, abs=1e-3), pytest.approx(83.761, abs=1e-3))),
        (10.0, 12.0, (100.0, 0.0)),  # log clocks past the wall time: all streaming
        (10.0, -1.0, (0.0, 100.0)),
    ],
)
def test_streaming_and_joining_shares(
    total_s: float, streaming_s: float, expected: tuple[float, float]
) -> None:
    assert bench.shares(total_s, streaming_s) == expected


@pytest.mark.parametrize(
    ("numerator_s", "denominator_s", "expected"),
    [(44.1, 29.4, 1.5), (10.0, 20.0, 0.5), (5.0, 0.0, None)],
)
def test_ratio(numerator_s: float, denominator_s: float, expected: float | None) -> None:
    found = bench.ratio(numerator_s, denominator_s)
    assert found == (None if expected is None else pytest.approx(expected))


def test_a_mean_and_its_student_t_interval() -> None:
    # 10, 12, 14: mean 12, s = 2, se = 2/sqrt(3), t(0.975, 2) = 4.303 -> half 4.968
    assert bench.mean_interval([10.0, 12.0, 14.0]) == "12.00 [7.03, 16.97]"


def test_one_value_has_no_interval() -> None:
    assert bench.mean_interval([3.5]) == "3.50 (an interval needs 2 rounds)"


def test_the_summary_pairs_the_rolling_restart_with_its_own_rounds_starts() -> None:
    mib = 1024 * 1024
    rounds = [
        bench.Round(20.0, 40 * mib, 4.0, (10.0, 10.0, 10.0), 45.0),  # 1.5x
        bench.Round(25.0, 40 * mib, None, (20.0, 20.0, 20.0), 90.0),  # 1.5x, no log lines
    ]
    lines = bench.summary(rounds)
    assert lines[0] == "over 2 rounds (mean [95 % CI], Student t):"
    text = "\n".join(lines)
    assert "geometric mean 1.500 [1.500, 1.500]" in text  # the same ratio in both rounds
    assert "10.00 (an interval needs 2 rounds) MiB/s (1 rounds with the log lines)" in text
    assert "bootstrap, start to UP/NORMAL   22.50 [" in lines[1]  # (20 + 25) / 2
