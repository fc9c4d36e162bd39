"""``casslab plan`` of the shipped seed-004 experiments, through the real entry point: each
trial's topology, one cluster per topology, the datacenter the load runs against, and a
bad topology refused before anything starts."""

from __future__ import annotations

from pathlib import Path

import pytest

from cli_entry import NEEDS_ENGINE, casslab, flat

pytestmark = NEEDS_ENGINE  # plan has the engine check every workload spec

EXPERIMENTS = Path(__file__).resolve().parents[3] / "experiments"


@pytest.mark.parametrize(
    ("name", "trials"),
    [("topologies-scaled", "9 cells x 2 iterations = 18 trials"), ("topologies", "= 90 trials")],
)
def test_plan_of_the_shipped_topologies(tmp_path: Path, name: str, trials: str) -> None:
    done = casslab(tmp_path, "plan", str(EXPERIMENTS / f"{name}.yaml"), columns=400)

    assert done.returncode == 0, done.stdout + done.stderr
    out = flat(done.stdout)
    assert trials in out
    assert "3 cluster(s) created, 0 restart(s)" in out
    assert "topology=one-host (dc1:4)" in out
    assert "topology=one-site (utah:3)" in out
    assert "topology=far-apart (utah:1,wisconsin:1,clemson:1)" in out
    assert "links=utah-wisconsin=13ms,clemson-utah=22ms,clemson-wisconsin=11ms" in out
    assert (
        "warning: topology far-apart (utah:1,wisconsin:1,clemson:1): no client_dc given: the "
        "load engine runs against datacenter utah"
    ) in out
    assert "warning: topology one-host" not in out


def test_plan_refuses_an_unknown_preset_and_lists_the_presets(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(
        "name: bad-topology\n"
        "factors: {cluster.topology: [one-site, lan]}\n"
        "workload: write\n"
        'measure: "duration=10s -rate threads=4"\n',
        encoding="utf-8",
    )

    done = casslab(tmp_path, "plan", str(path))

    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert (
        "factors.cluster.topology[1]: topology 'lan': no such preset; the presets are "
        "one-host (dc1:4), one-site (utah:3), far-apart (utah:1,wisconsin:1,clemson:1)"
    ) in flat(done.stderr)
