"""The JIT of the nodes of real-node test modules that start nodes, ask them a few
things and stop them: C1 only (``-XX:TieredStopAtLevel=1``). Starting a node is most of
what these modules do, and at a node's start C2's compilations are most of its CPU; a
test that needs the behaviour (a node that joins, answers, leaves) and not the default
speed does not need them. The operations' three modules alone took 305 s and 494 CPU-s
of the machine with C2, 247 s and 277 CPU-s with C1; the eleven modules that took it up
next (local, lifecycle, node versions, presets, external, credentials, runner, tune,
software factors, signals, hosts), on two workers, 379 s and 716 CPU-s with C2, 283 s and
499 CPU-s with C1 (2026-11-29, one round each). The wheel install's two nodes too
(tests/install/test_wheel_install.py: with pip's ``--no-compile`` as well, 74 s and 97
CPU-s of its own before, 62 s and 71 after, alone, 2026-11-29), and the clock-skew
experiment's two (tests/experiment/data/clock-skew.yaml: 33 s and 46 CPU-s before, 29 s
and 31 after). And the session's shared three nodes (tests/shared_clusters.py): the three
modules that use them, one after the other on one worker, took 97 s and 132 CPU-s with C2,
78 s and 88 CPU-s with C1 (2026-11-30); each worker starts its own three.

A module whose nodes work hard keeps C2: the vector index's rebuild
(tests/cli/test_stress_vector_integration.py) timed out under C1, and a module that
measures a rate or a latency runs its nodes as users run them. A module whose cluster
serves both (the two-datacenter topology, the faults' three nodes) takes C1 only in a
session that runs none of its measuring tests (:func:`unless_measuring`): in the real-node
phase the topology module's own nodes used 55 CPU-s with C2 and 27 with C1 (alone, 155 s
and 153 s, its measuring tests deselected, 2026-11-30: process accounting, as its
isolated nodes' cgroups are not the test's)."""

from __future__ import annotations

import pytest

C1_ONLY = "-XX:TieredStopAtLevel=1"


def up_words(options: tuple[str, ...]) -> tuple[str, ...]:
    """The words ``casslab up`` takes for JVM ``options``: ``--jvm-option`` before each."""
    return tuple(word for option in options for word in ("--jvm-option", option))


UP_C1 = up_words((C1_ONLY,))
"""The words ``casslab up`` takes for C1 only."""


def unless_measuring(request: pytest.FixtureRequest) -> tuple[str, ...]:
    """The JVM options of the nodes of a module-scoped cluster that serves both kinds of
    test: C1 when none of the module's `measuring` tests runs in this session (the
    real-node phase of `make test` deselects them), the default JIT when one does (the
    measuring phase, or the module run whole)."""
    measuring = any(
        item.path == request.path and item.get_closest_marker("measuring") is not None
        for item in request.session.items
    )
    return () if measuring else (C1_ONLY,)
