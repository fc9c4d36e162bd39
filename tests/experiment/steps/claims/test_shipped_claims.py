"""Every shipped seed study states its seed's claims: each loads, names a KPI the file reports
and cells of its design (``casslab plan`` checks and lists them), and the claims it cannot
test say why."""

from __future__ import annotations

from pathlib import Path

import pytest

from casslab.analysis.claim_records import Claim, matched_pairs
from casslab.experiment.design.plan_expansion import expand
from casslab.experiment.file.experiment_loader import load
from cli_entry import casslab

EXPERIMENTS = Path(__file__).resolve().parents[4] / "experiments"
SEEDS = Path("/work/shared/seeds")

# each seed study, scaled and full size: seed file prefix -> shipped files
SEED_STUDIES = {
    "000": [
        "compaction-tuning",
        "compaction-interactions",
        "workload-mix",
        "workload-mix-container",
        "workload-mix-container-scaled",
    ],
    "001": ["compaction-strategies", "quick-compaction"],
    "002": ["container-overhead", "container-overhead-scaled"],
    "003": ["seed003-vm-sizes", "seed003-vm-sizes-scaled"],
    "004": ["topologies", "topologies-scaled", "clock-lww", "clock-lww-scaled"],
}
FILES = [(seed, name) for seed, names in SEED_STUDIES.items() for name in names]


@pytest.mark.parametrize(("seed", "name"), FILES)
def test_every_claim_names_a_kpi_and_cells_of_the_design(seed: str, name: str) -> None:
    experiment = load(EXPERIMENTS / f"{name}.yaml")
    tested = [c for c in experiment.claims if c.not_testable is None]
    untested = [c for c in experiment.claims if c.not_testable is not None]
    assert tested, f"{name}: no claim of seed {seed} is tested"
    assert untested, f"{name}: no claim says what casslab cannot test"
    assert all(c.source.startswith(f"seed {seed}") or "rule" in c.source for c in tested)
    cells = {cell.id: cell.labels for cell in expand(experiment).cells}
    for claim in tested:
        assert claim.kpi in experiment.kpis, claim.says
        assert matched_pairs(claim, cells), claim.says


@pytest.mark.parametrize(("seed", "name"), FILES)
def test_the_sources_name_the_seed_files_that_exist(seed: str, name: str) -> None:
    experiment = load(EXPERIMENTS / f"{name}.yaml")
    seeded = [c for c in experiment.claims if c.source.startswith("seed ")]
    assert seeded
    for claim in seeded:
        file = claim.source.split("(", 1)[1].split(")", 1)[0]
        assert file.startswith(seed)
        if SEEDS.is_dir():  # the seeds are on the lab's machines, not in the repository
            assert (SEEDS / file).is_file(), claim.source


def test_the_scaled_and_full_studies_state_the_same_claims() -> None:
    for full, scaled in [
        ("container-overhead", "container-overhead-scaled"),
        ("topologies", "topologies-scaled"),
        ("clock-lww", "clock-lww-scaled"),
    ]:
        says: list[list[str]] = [
            [c.says for c in load(EXPERIMENTS / f"{n}.yaml").claims] for n in (full, scaled)
        ]
        assert says[0] == says[1], full


def test_casslab_plan_lists_the_claims() -> None:
    # a process of its own: this one's console width was fixed when casslab.cli was first
    # imported, perhaps by another test under another COLUMNS
    result = casslab(None, "plan", str(EXPERIMENTS / "compaction-strategies.yaml"), columns=400)
    assert result.returncode == 0, result.stdout + result.stderr
    words = " ".join(result.stdout.split())
    assert "claims: 5 tested, 4 not" in words
    assert "not testable: DateTieredCompactionStrategy was removed in" in words
    assert "op_rate: table.compaction=STCS higher than table.compaction=LCS" in words


def test_a_shipped_claim_round_trips_through_the_manifest_dict() -> None:
    experiment = load(EXPERIMENTS / "topologies-scaled.yaml")
    recorded = experiment.to_file_dict()["claims"]
    assert [Claim.model_validate(c) for c in recorded] == experiment.claims
