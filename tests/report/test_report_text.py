"""Number formatting and verdict wording (table-driven)."""

from __future__ import annotations

import pytest

from casslab.analysis import Verdict, describe
from casslab.report import text


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (None, "-"),
        (float("nan"), "-"),
        (0.0, "0"),
        (12345.678, "12,346"),
        (5012.0, "5,012"),
        (123.456, "123.5"),
        (12.345, "12.35"),
        (-2.5, "-2.50"),
        (0.01234, "0.0123"),
        (0.5, "0.5"),
        (0.000123, "0.000123"),
        (3.2e9, "3.2e+09"),
    ],
)
def test_number(value: float | None, shown: str) -> None:
    assert text.number(value) == shown


@pytest.mark.parametrize(
    ("value", "shown"),
    [(None, "-"), (0.0004, "<0.001"), (0.001, "0.001"), (0.04999, "0.050"), (0.9114, "0.911")],
)
def test_p_value(value: float | None, shown: str) -> None:
    assert text.p_value(value) == shown


@pytest.mark.parametrize(
    ("value", "shown"), [(None, "-"), (20.34, "+20.3%"), (-46.5, "-46.5%"), (0.0, "+0.0%")]
)
def test_percent(value: float | None, shown: str) -> None:
    assert text.percent(value) == shown


def test_ratio_with_and_without_an_interval() -> None:
    assert text.ratio(1.2034, 1.152, 1.258) == "1.203 [1.152, 1.258]"
    assert text.ratio(1.2034, None, None) == "1.203 [CI undetermined]"
    assert text.ratio(None, None, None) == "-"


def test_mean_ci_spells_out_an_undetermined_interval() -> None:
    three = describe([5012.0, 4890.0, 5105.0], cell_id="c", kpi="op_rate")
    one = describe([5012.0], cell_id="c", kpi="op_rate")
    none = describe([None], cell_id="c", kpi="op_rate")

    assert text.mean_ci(three) == "5,002 ± 267.9"
    assert text.mean_ci(one) == "5,012 (n=1, CI undetermined)"
    assert text.mean_ci(none) == "-"
    assert text.ci_range(one) == "undetermined"


def test_every_verdict_has_words_and_a_tone() -> None:
    assert set(text.VERDICT_TEXT) == set(Verdict)
    assert set(text.VERDICT_TONE) == set(Verdict)
    assert text.VERDICT_TEXT[Verdict.NO_SIGNIFICANT_DIFFERENCE] == "not significant"
    assert text.VERDICT_TEXT[Verdict.UNDETERMINED] == "undetermined"
