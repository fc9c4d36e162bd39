"""A run of preset latest on a version this machine has no source for (neither the
version's conf/ files nor a preset casslab derived from its source): ``casslab plan`` warns,
``casslab run`` refuses before anything starts, so the default preset's cells are not
measured in vain (a derived version passes: tests/cluster/test_presets.py). Through the
real entry point."""

from __future__ import annotations

from pathlib import Path

from casslab.cluster import distribution
from cli_entry import NEEDS_ENGINE, casslab, flat

pytestmark = NEEDS_ENGINE  # plan and run have the engine check every workload spec


def _file(tmp_path: Path) -> Path:
    path = tmp_path / "presets.yaml"
    path.write_text(
        "name: presets\n"
        "cluster: {nodes: 1, heap: 512M, version: 5.0.9}\n"
        "factors: {cluster.preset: [default, latest]}\n"
        "workload: write\n"
        'measure: "duration=10s -rate threads=4"\n'
        "iterations: 1\n"
        "order: sequential\n",
        encoding="utf-8",
    )
    return path


def _cache_without_conf(root: Path) -> Path:
    """A cache holding this machine's cached 5.0.9 (its jars linked, not copied or fetched
    again) but not its conf/, whatever a developer put in the real one."""
    real = distribution.version_dir("5.0.9")
    mirror = root / "cassandra" / "5.0.9"
    mirror.mkdir(parents=True)
    for entry in real.iterdir() if real.is_dir() else ():
        if entry.name != "conf":
            (mirror / entry.name).symlink_to(entry)
    return root


def test_plan_warns_and_run_refuses_a_preset_without_a_source(tmp_path: Path) -> None:
    env = {"CASSLAB_CACHE": str(_cache_without_conf(tmp_path / "cache"))}
    unset = ("CASSANDRA_HOME",)
    planned = casslab(tmp_path, "plan", str(_file(tmp_path)), env=env, unset=unset)
    assert planned.returncode == 0, planned.stdout + planned.stderr
    conf = tmp_path / "cache" / "cassandra" / "5.0.9" / "conf"
    warning = (
        f"warning: cluster.preset: preset latest: Cassandra 5.0.9's distribution has no "
        f"{conf / 'cassandra.yaml'} or {conf / 'cassandra_latest.yaml'}, and casslab has "
        "not derived its preset from the source (it has for 5.0.0, 5.0.1)"
    )
    assert warning in flat(planned.stdout)
    results = tmp_path / "results"
    ran = casslab(
        tmp_path,
        "run",
        str(_file(tmp_path)),
        "--results",
        str(results),
        env=env,
        unset=unset,
    )
    assert ran.returncode == 1, ran.stdout + ran.stderr
    assert "apache-cassandra-5.0.9-bin.tar.gz" in flat(ran.stderr)
    assert not results.exists()  # nothing started, nothing written
