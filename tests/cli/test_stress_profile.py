"""`casslab stress --profile` and `casslab ycsb ... --profile`: refused before anything starts
when it cannot work (no current cluster to profile, a run split over several engines); and
the client split's refusals in YCSB's own options."""

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


def test_ycsb_profile_is_refused_the_same_ways(tmp_path: Path) -> None:
    args = ["ycsb", "run", "-p", "recordcount=10", "-p", "operationcount=10", "--profile", "cpu"]
    alone = casslab(tmp_path / "home", *args)
    assert alone.returncode == 1
    assert "--profile cpu: there is no current casslab cluster to profile" in flat(alone.stderr)
    split = casslab(tmp_path / "home", *args, "-threads", "4", "--clients", "2")
    assert split.returncode == 2
    assert "drop --clients/--client-hosts or --profile" in flat(split.stderr)


def test_ycsb_client_split_refusals_speak_ycsb(tmp_path: Path) -> None:
    """The split's advice in YCSB's options (``-threads``, ``-target``), not cassandra-stress's."""
    for args, words in (
        (
            [],
            "more clients than threads (1); each client needs at least one thread: give "
            "-threads 2 or more",
        ),
        (
            ["-target", "100"],
            "more clients than requests in flight (1); give -threads 2 or more with -target",
        ),
    ):
        done = casslab(
            tmp_path / "home",
            "ycsb",
            "run",
            "-p",
            "recordcount=10",
            "-p",
            "operationcount=10",
            *args,
            "--clients",
            "2",
        )
        assert done.returncode == 2
        assert words in flat(done.stderr)
        assert "-rate" not in done.stderr
