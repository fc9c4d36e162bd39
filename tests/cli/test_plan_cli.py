"""``casslab plan`` with isolated nodes, through the real entry point: the nodes' isolation
per trial, the clusters the plan creates, the host's oversubscription warnings, and a bad
node size refused with the known ones listed."""

from __future__ import annotations

from pathlib import Path

import pytest

from cli_entry import NEEDS_ENGINE, casslab, flat

pytestmark = NEEDS_ENGINE  # plan has the engine check every workload spec


def _file(tmp_path: Path, cluster: str, factors: str) -> Path:
    path = tmp_path / "iso.yaml"
    path.write_text(
        "name: iso-plan\n"
        f"cluster: {cluster}\n"
        f"factors: {factors}\n"
        "workload: write\n"
        'measure: "duration=10s -rate threads=4"\n'
        "iterations: 2\n"
        "order: sequential\n",
        encoding="utf-8",
    )
    return path


def test_plan_shows_isolation_and_warns_of_oversubscription(tmp_path: Path) -> None:
    path = _file(
        tmp_path, "{nodes: 2, heap: 512M, cpus: 1000}", "{cluster.isolation: [process, netns]}"
    )

    done = casslab(tmp_path, "plan", str(path), columns=300)

    assert done.returncode == 0, done.stdout + done.stderr
    out = flat(done.stdout)
    assert "isolation=netns cpus=1000" in out
    assert "2 cells x 2 iterations = 4 trials" in out
    assert "2 cluster(s) created, 0 restart(s)" in out
    assert out.count("warning:") == 2  # once per distinct cluster
    assert (
        "warning: cluster of 2 node(s), heap 512M, default Cassandra, isolation netns, "
        "cpus 1000: 2 node(s) x 1000 CPU = 2000 CPUs on a host with"
    ) in out
    assert "add cpu_scale " in out


def test_plan_of_plain_nodes_has_no_isolation_column(tmp_path: Path) -> None:
    path = _file(tmp_path, "{nodes: 1, heap: 512M}", "{threads: [4, 8]}")
    done = casslab(tmp_path, "plan", str(path))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "isolation" not in done.stdout
    assert "warning" not in done.stdout


@pytest.mark.parametrize(
    ("cluster", "factors", "expected"),
    [
        (
            "{nodes: 1, node_size: t2.huge}",
            "{threads: [4]}",
            "cluster.node_size: node size 't2.huge' is not known; the sizes are: t2.nano",
        ),
        (
            "{nodes: 1, heap: 1G}",
            "{cluster.node_size: [t2.micro, t2.small]}",
            "factors.cluster.node_size[0]: heap 1G does not fit in the memory limit of 1024 MiB",
        ),
    ],
)
def test_plan_refuses_bad_isolation_before_anything_starts(
    tmp_path: Path, cluster: str, factors: str, expected: str
) -> None:
    done = casslab(tmp_path, "plan", str(_file(tmp_path, cluster, factors)))
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert expected in flat(done.stderr)


def test_plan_says_when_the_measured_phase_ends_after_its_operations(tmp_path: Path) -> None:
    shipped = Path(__file__).parents[2] / "experiments" / "upgrade-under-load-scaled.yaml"
    done = casslab(tmp_path, "plan", str(shipped), columns=300)
    assert done.returncode == 0, done.stderr
    said = flat(done.stdout)
    assert "each measured phase ends 60 s after its operations and faults are over" in said
    assert "(its duration=/n= at most)" in said
