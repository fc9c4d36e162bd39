"""The one duration parser, on literal inputs."""

from __future__ import annotations

import pytest

from casslab.units import duration_s


@pytest.mark.parametrize(
    ("value", "seconds"),
    [
        ("500ms", 0.5),
        ("30s", 30.0),
        ("20m", 1200.0),
        ("2h", 7200.0),
        ("1d", 86400.0),
        ("1.5", 1.5),
        (" 3 S ", 3.0),
        ("0s", 0.0),
        (45, 45.0),
        (2.5, 2.5),
    ],
)
def test_durations(value: object, seconds: float) -> None:
    assert duration_s(value) == pytest.approx(seconds)


@pytest.mark.parametrize("value", ["", "ten", "5w", "-1s", -1, True, None, "1 0s", [30]])
def test_not_durations(value: object) -> None:
    assert duration_s(value) is None
