"""The ``claims:`` section: each claim's own shape, and its KPI, factors, levels and cells
checked against the design (every problem at once, each with its path)."""

from __future__ import annotations

import pytest

from casslab.analysis.claim_records import Claim, parse_size
from casslab.errors import ExperimentValidationError
from casslab.experiment.file.experiment_loader import parse

HEAD = """
name: claims
factors:
  table.compaction: [SizeTieredCompactionStrategy, LeveledCompactionStrategy]
  workload: [write, read]
design: {design}
measure: "duration=10s"
kpis: [op_rate, latency_p99_ms]
claims:
"""
TESTED = """
  - says: "LCS gave 2358 op/s against STCS's 2350"
    source: "seed 001, Table 2"
    seed_value: {a: 2358, b: 2350, unit: op/s}
    compare: {a: {table.compaction: LCS}, b: {table.compaction: STCS}}
    kpi: op_rate
    direction: higher
  - says: "the study's 8 GB heap"
    source: "seed 000, section 4"
    not_testable: "the study's hardware"
"""


def problems(text: str) -> list[str]:
    with pytest.raises(ExperimentValidationError) as caught:
        parse(text)
    return list(caught.value.problems)


def test_claims_load_with_their_comparison_and_reasons() -> None:
    experiment = parse(HEAD.format(design="factorial") + TESTED)
    tested, untested = experiment.claims
    assert tested.compare is not None
    assert tested.compare.a == {"table.compaction": "LCS"}
    assert tested.seed_value is not None
    assert tested.seed_value.effect_pct() == pytest.approx(100 * (2358 / 2350 - 1))
    assert untested.not_testable == "the study's hardware"
    assert experiment.to_file_dict()["claims"][0]["kpi"] == "op_rate"


def test_kpis_factors_and_levels_are_checked_against_the_design() -> None:
    bad = """
  - says: s
    source: t
    compare:
      a: {table.compaction: LeveledCompactionStrategy, threads: 8}
      b: {table.compaction: UCS, threads: 4}
    kpi: cpu_busy_pct
    direction: lower
"""
    found = problems(HEAD.format(design="factorial") + bad)
    assert found == [
        "claims[0].kpi: 'cpu_busy_pct' is not in kpis:; add it there so the runs measure it",
        "claims[0].compare.a.table.compaction: write the level by its slug as the cell ids "
        "show it: 'LCS'",
        "claims[0].compare.a.threads: not a factor of this experiment (factors: "
        "table.compaction, workload)",
        "claims[0].compare.b.table.compaction: 'UCS' is not a level of table.compaction "
        "(levels: STCS, LCS)",
        "claims[0].compare.b.threads: not a factor of this experiment (factors: "
        "table.compaction, workload)",
    ]


def test_a_claim_whose_cells_have_no_partner_in_the_design_is_refused() -> None:
    ofat = """
  - says: s
    source: t
    compare:
      a: {table.compaction: LCS, workload: read}
      b: {table.compaction: STCS, workload: write}
    kpi: op_rate
    direction: higher
"""
    (found,) = problems(HEAD.format(design="ofat") + ofat)
    assert found.startswith("claims[0].compare: no cell with")
    assert parse(HEAD.format(design="factorial") + ofat).claims[0].kpi == "op_rate"


TESTED_FIELDS: dict[str, object] = {
    "compare": {"a": {"f": "x"}, "b": {"f": "y"}},
    "kpi": "op_rate",
    "direction": "higher",
}


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"kpi": "op_rate"}, "missing compare, direction"),
        ({"not_testable": "x", "kpi": "op_rate"}, "not both"),
        (TESTED_FIELDS | {"direction": "equal"}, "direction equal needs a size"),
        (TESTED_FIELDS | {"size": "within 5%"}, "use 'at least N%'"),
        (TESTED_FIELDS | {"size": "a lot"}, "write 'at least N%'"),
    ],
)
def test_a_claim_is_tested_or_says_why_not(fields: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Claim.model_validate({"says": "s", "source": "t"} | fields)


def test_sizes_parse_to_a_kind_and_a_percentage() -> None:
    assert parse_size("at least 10% higher") == ("at least", 10.0)
    assert parse_size("within 2.5%") == ("within", 2.5)


def test_the_two_groups_name_the_same_factors_with_other_levels() -> None:
    with pytest.raises(ValueError, match="name the same factors"):
        Claim.model_validate(
            {
                "says": "s",
                "source": "t",
                "compare": {"a": {"f": "x"}, "b": {"g": "y"}},
                "kpi": "op_rate",
                "direction": "higher",
            }
        )
    with pytest.raises(ValueError, match="the same cells"):
        Claim.model_validate(
            {
                "says": "s",
                "source": "t",
                "compare": {"a": {"f": 8}, "b": {"f": "8"}},
                "kpi": "op_rate",
                "direction": "higher",
            }
        )
