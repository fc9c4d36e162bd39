"""`casslab stress --profile`: refused before anything starts when it cannot work (no
current cluster to profile, a run split over several engines)."""

from __future__ import annotations

from pathlib import Path

from cli_entry import casslab, flat


def test_profile_without_a_current_cluster_says_how_to_get_one(tmp_path: Path) -> None:
    done = casslab(tmp_path / "home", "stress", "write", "n=10", "--profile", "cpu")
    assert done.returncode == 1
    message = flat(done.stderr)
    assert "--profile cpu: there is no current casslab cluster to profile" in message
    assert "casslab up" in message


def test_profile_of_a_run_split_over_engines_is_refused(tmp_path: Path) -> None:
    args = ["stress", "write", "n=10", "--clients", "2", "--profile", "cpu"]
    done = casslab(tmp_path / "home", *args)
    assert done.returncode == 2
    assert "drop --clients/--client-hosts or --profile" in flat(done.stderr)


def test_an_unknown_profile_kind_names_the_kinds(tmp_path: Path) -> None:
    done = casslab(tmp_path / "home", "stress", "write", "n=10", "--profile", "heap")
    assert done.returncode == 2
    assert "cpu" in flat(done.stderr)
    assert "alloc" in flat(done.stderr)
