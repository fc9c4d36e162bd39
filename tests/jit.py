"""The JVM options of the nodes of real-node test modules that start nodes, ask them a
few things and stop them (:data:`LIGHT`): C1 only (``-XX:TieredStopAtLevel=1``), and a
coarser approximate clock (:data:`COARSE_CLOCK`). Starting a node is most of what these
modules do, and at a node's start C2's compilations are most of its CPU; a test that
needs the behaviour (a node that joins, answers, leaves) and not the default speed does
not need them. The operations' three modules alone took 305 s and 494 CPU-s of the
machine with C2, 247 s and 277 CPU-s with C1; the eleven modules that took it up next
(local, lifecycle, node versions, presets, external, credentials, runner, tune, software
factors, signals, hosts), on two workers, 379 s and 716 CPU-s with C2, 283 s and 499
CPU-s with C1 (2026-11-29, one round each). The wheel install's two nodes too
(tests/install/test_wheel_install.py: with pip's ``--no-compile`` as well, 74 s and 97
CPU-s of its own before, 62 s and 71 after, alone, 2026-11-29), and the clock-skew
experiment's two (tests/experiment/data/clock-skew.yaml: 33 s and 46 CPU-s before, 29 s
and 31 after). And the session's shared three nodes (tests/shared_clusters.py): the three
modules that use them, one after the other on one worker, took 97 s and 132 CPU-s with
C2, 78 s and 88 CPU-s with C1 (2026-11-30); each worker starts its own three.

A node that works hard keeps C2 and takes only the coarse clock: the session's shared
node (the vector index's rebuild, tests/cli/test_stress_vector_integration.py, timed out
under C1). A module that measures a rate or a latency runs its nodes as users run them.
A module whose cluster serves both (the two-datacenter topology, the faults' three nodes)
takes :data:`LIGHT` only in a session that runs none of its measuring tests
(:func:`unless_measuring`): in the real-node phase the topology module's own nodes used
55 CPU-s with C2 and 27 with C1 (alone, 155 s and 153 s, its measuring tests deselected,
2026-11-30: process accounting, as its isolated nodes' cgroups are not the test's)."""

from __future__ import annotations

import pytest

C1_ONLY = "-XX:TieredStopAtLevel=1"

COARSE_CLOCK = "-Dcassandra.approximate_time_precision_ms=20"
"""Cassandra's approximate clock (request and message expiry, query monitoring) sampled
every 20 ms, not every 2: that task, run 500 times a second, is most of an idle node's CPU.
One idle node (5.0.9, 512M, C1) used 2.08 CPU-s a minute with 2 ms, 1.08 with 20 ms (its
scheduled-fast-tasks thread 1.36 and 0.30 CPU-s); under 2,000 writes/s it made no
difference beyond the spread (35.1 and 34.3 CPU-s in 40 s against 37.6 and 34.8;
2026-11-30). A test of what a node does, not of how fast, does not see a timeout's end
move by 20 ms."""

LIGHT = (C1_ONLY, COARSE_CLOCK)
"""The JVM options of nodes that are started, asked a few things and stopped."""


def up_words(options: tuple[str, ...]) -> tuple[str, ...]:
    """The words ``casslab up`` takes for JVM ``options``: ``--jvm-option`` before each."""
    return tuple(word for option in options for word in ("--jvm-option", option))


UP_LIGHT = up_words(LIGHT)
"""The words ``casslab up`` takes for :data:`LIGHT`."""


def session_measures(request: pytest.FixtureRequest, *, module_only: bool = False) -> bool:
    """Whether this session runs a `measuring` test (the measuring phase of `make test`,
    or a module run whole): its session-scoped nodes then run as users run them. With
    ``module_only``, a measuring test of the requesting module only."""
    return any(
        item.get_closest_marker("measuring") is not None
        and (not module_only or item.path == request.path)
        for item in request.session.items
    )


def unless_measuring(request: pytest.FixtureRequest) -> tuple[str, ...]:
    """The JVM options of the nodes of a module-scoped cluster that serves both kinds of
    test: :data:`LIGHT` when none of the module's `measuring` tests runs in this session
    (the real-node phase of `make test` deselects them), none (the default JIT and clock)
    when one does (the measuring phase, or the module run whole)."""
    return () if session_measures(request, module_only=True) else LIGHT
