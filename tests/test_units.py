"""The one duration parser and the one size parser, on literal inputs."""

from __future__ import annotations

import pytest

from casslab.errors import ConfigError
from casslab.units import duration_s, parse_bytes


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


@pytest.mark.parametrize(
    ("text", "expected"),
    [("2GiB", 2 * 2**30), ("512M", 512 * 2**20), ("1.5G", 3 * 2**29), ("64MiB", 64 * 2**20)],
)
def test_sizes_parse_in_binary_units(text: str, expected: int) -> None:
    assert parse_bytes(text, "--memory", "2GiB") == expected


@pytest.mark.parametrize("text", ["lots", "0M", "-1G", "2TB"])
def test_a_bad_size_names_the_option_and_an_example(text: str) -> None:
    with pytest.raises(ConfigError, match="--memory"):
        parse_bytes(text, "--memory", "2GiB")
