"""bench/vector_search.py's round order: casslab and a baseline each search first in every
other round, so neither always follows the same client."""

from __future__ import annotations

from script_files import script


def test_a_baseline_and_casslab_take_turns_and_the_driver_goes_last() -> None:
    bench = script("vector_search", "bench")
    names = ["casslab", "python-driver", "baseline"]
    orders = [bench.round_order(names, r) for r in range(4)]
    assert orders == [
        ["casslab", "baseline", "python-driver"],
        ["baseline", "casslab", "python-driver"],
        ["casslab", "baseline", "python-driver"],
        ["baseline", "casslab", "python-driver"],
    ]
    # each of the pair follows the other in half the rounds after the first
    follows = [o[1] for o in orders]
    assert follows.count("casslab") == follows.count("baseline")


def test_two_clients_take_turns_first() -> None:
    bench = script("vector_search", "bench")
    names = ["casslab", "python-driver"]
    assert [bench.round_order(names, r)[0] for r in range(4)] == [
        "casslab",
        "python-driver",
        "casslab",
        "python-driver",
    ]
