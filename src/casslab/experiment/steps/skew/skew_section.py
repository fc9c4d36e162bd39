"""Clock skew in experiment files (pure): the ``cluster.clock`` offsets a trial runs with,
and the ``lww`` probe that shows what they do to last-write-wins.

``cluster: {clock: {2: -500ms}}`` or the factor ``cluster.clock: [{}, {2: -50ms}, {2:
-500ms}]`` sets node 2's clock 500 ms behind for the trial (the other nodes on time). The
runner writes each node's clock file before the trial (:mod:`casslab.cluster.clock_skew`): the
nodes keep running, so a change of skew costs no restart.

``lww: {keys: 100, gap: 100ms, timestamps: server}`` runs, after each trial's measured
phase, :func:`casslab.cluster.lww.probe`: for each key v1 through a node with a good
clock, the gap, v2 through the skewed node, every key read at ALL. The factors
``lww.gap``, ``lww.timestamps`` and ``lww.keys`` vary it. The trial's KPIs
``lww_lost_pct`` (acknowledged updates read back as v1), ``lww_unacknowledged_pct`` (v2
writes that failed) and ``expired_messages`` (internode messages the nodes dropped as
expired on arrival, during the measured phase and the probe) say what it saw.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Literal

from pydantic import Field, StrictInt, field_validator

from casslab.experiment.file.file_record import Level, Record
from casslab.units import duration_s, offset_ms

LWW_FACTOR_FIELDS = ("gap", "timestamps", "keys")
"""The fields of :class:`LwwSection` an ``lww.<field>`` factor may vary."""

LWW_KPIS = ("lww_lost_pct", "lww_unacknowledged_pct", "lww_lost", "lww_acknowledged")
"""The KPIs a trial has only when the experiment runs the ``lww`` probe."""

CLOCK_KPIS = ("expired_messages",)
"""The KPIs a trial has only when it runs with ``cluster.clock`` or the ``lww`` probe."""

MAX_OFFSET_MS = 86_400_000.0


def clock_offsets(value: Level) -> dict[int, float]:
    """A ``cluster.clock`` value (``{2: -500ms}``; ``{}`` or null: every clock on time) as
    ms per node; ValueError naming the value and the form otherwise."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ValueError(f"expected node offsets such as {{2: -500ms}}, got {value!r}")
    out: dict[int, float] = {}
    for node, offset in value.items():
        number = int(node) if isinstance(node, int) or str(node).isdigit() else None
        if number is None or number < 1:
            raise ValueError(f"node {node!r}: expected a node number (1, 2, ...)")
        parsed = offset_ms(offset) if isinstance(offset, str) else None
        if parsed is None:
            raise ValueError(
                f"clock offset {offset!r} of node {number}: give a number with its unit, "
                "e.g. -500ms or +1.5s"
            )
        if abs(parsed) > MAX_OFFSET_MS:
            raise ValueError(f"clock offset {offset!r} of node {number}: more than a day")
        out[number] = parsed
    return out


def gap_ms(value: Any) -> float:
    """An ``lww.gap`` (``100ms``, ``1s``, ``0ms``) in ms; ValueError otherwise."""
    seconds = duration_s(value) if isinstance(value, str) else None
    if seconds is None or seconds < 0:
        raise ValueError(f"expected a gap such as 100ms or 1s, got {value!r}")
    return seconds * 1000


class LwwSection(Record):
    """The experiment file's ``lww`` section: the probe run after each trial."""

    keys: StrictInt = Field(default=100, ge=1, le=100_000)  # updates per trial
    gap: str = "100ms"  # between v1 and v2 of a key
    timestamps: Literal["server", "client"] = "server"  # whose clock stamps the writes
    node: StrictInt | None = Field(default=None, ge=1)  # writes v2; None: see skewed_node
    good: StrictInt | None = Field(default=None, ge=1)  # writes v1; None: another node

    @field_validator("gap", mode="before")
    @classmethod
    def _gap(cls, value: Any) -> Any:
        gap_ms(value)
        return value


class LwwProbe(Record):
    """The probe of one trial, resolved: who writes, how many keys, which gap."""

    keys: int
    gap_ms: float
    client_timestamps: bool
    good: int  # the node writing v1
    skewed: int  # the node writing v2


def skewed_node(clock: dict[int, float], nodes: int) -> int:
    """The node whose clock is furthest behind (the lowest offset, ties: the lower
    number); node 2 when no clock is skewed (a single node has no other: node 1)."""
    behind = sorted((offset, node) for node, offset in clock.items() if offset != 0)
    if behind:
        return behind[0][1]
    return 2 if nodes >= 2 else 1


def resolve_probe(
    section: LwwSection, levels: dict[str, Level], clock: dict[int, float], nodes: int
) -> LwwProbe:
    """The probe of a trial: the section with the trial's ``lww.<field>`` levels over it
    (``levels`` by field name); ValueError for a level of the wrong form."""
    values = section.model_dump() | levels
    checked = LwwSection.model_validate(values)
    skewed = checked.node if checked.node is not None else skewed_node(clock, nodes)
    good = checked.good
    if good is None:
        good = next((n for n in range(1, nodes + 1) if n != skewed), skewed)
    return LwwProbe(
        keys=checked.keys,
        gap_ms=gap_ms(checked.gap),
        client_timestamps=checked.timestamps == "client",
        good=good,
        skewed=skewed,
    )


def probe_problems(probe: LwwProbe, nodes: int) -> list[str]:
    """Why ``probe`` cannot run on ``nodes`` nodes (empty: it can)."""
    if nodes < 2:
        return [
            f"the lww probe needs two nodes (one good clock, one skewed); the cluster has {nodes}"
        ]
    problems = [
        f"lww: node {n} does not exist; the cluster has nodes 1-{nodes}"
        for n in sorted({probe.good, probe.skewed})
        if n > nodes
    ]
    if probe.good == probe.skewed:
        problems.append(f"lww: the good node and the skewed node are both {probe.good}")
    return problems


def needs_injectable_clock(
    trial_clocks: Iterable[Mapping[int, float]], probes: bool, clock_jumps: bool
) -> bool:
    """Whether a run's cluster starts with casslab's injectable clock: a trial with clock
    offsets, the ``lww`` probe (``probes``) or a ``clock-jump`` fault needs it; any other
    run's nodes run Cassandra's own clock (stock)."""
    return probes or clock_jumps or any(bool(offsets) for offsets in trial_clocks)
