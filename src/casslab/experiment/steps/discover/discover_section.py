"""Load as a share of capacity in experiment files (pure): the ``discover:`` step and the
levels relative to it.

``rate: [100%, 66%]`` runs each cell open loop at that share of the capacity the step
discovered (seed 002's "100% and 66% load"); ``threads: [best]`` runs it with the thread
count of the highest op rate of cassandra-stress's thread ramp (seed 000's 609 and 406
threads). Absolute levels (``rate: [2000]``, ``threads: [64]``) may sit beside them.

The step runs once per group of cells: the cells that differ only in their ``rate`` and
``threads`` levels share a cluster, data and workload, so they share one capacity. It
runs on the group's first trial, after that trial's cluster is up, warm and loaded:

* with ``p99`` (``discover: {p99: 20ms}``): the open-loop search of ``casslab capacity
  find`` (:mod:`casslab.capacity.find`); 100% is its answer, the highest rate whose p99
  from the intended start stays under the SLO, ``repeats`` runs at it;
* without: the closed-loop thread ramp (``casslab capacity find --closed-loop``,
  :mod:`casslab.capacity.ramp`); 100% is its best op rate, the maximum throughput.

``threads: [best]`` always takes the ramp's best thread count, so a file with both a
``p99`` and ``best`` runs both: the ramp first, then the search with the best count as its
bound on operations in flight, as the trials will run. The trial then resets its data and
loads it again, so the discovery's writes are not measured. The values land in
``discovered.json`` and in the run's manifest; a resumed run reuses them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Literal

from pydantic import Field, model_validator

from casslab.experiment.file.file_record import Level, Record
from casslab.units import duration_s

BEST = "best"
MAX_SHARE_PCT = 200.0
_PERCENT = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*%\s*$")


class DiscoverSection(Record):
    """``discover:``: how the capacity of each group of cells is found."""

    p99: str | None = None  # the SLO of the open-loop search (20ms); None: the thread ramp
    errors: str = "0"  # failed operations allowed per run of the search: 0 or a share (0.1%)
    step_duration: str = "10s"  # measured length of each run (and of each ramp step)
    warmup: str = "3s"  # discarded before each run
    start_rate: float = Field(default=1000.0, gt=0)  # ops/s of the search's first run
    max_rate: float = Field(default=1_000_000.0, gt=0)
    precision: float = Field(default=0.05, ge=0.01, le=1)  # the bracket's relative width
    repeats: int = Field(default=2, ge=1, le=20)  # runs that must all pass at the answer
    max_runs: int = Field(default=30, ge=1)

    @model_validator(mode="after")
    def _rates(self) -> DiscoverSection:
        if self.start_rate > self.max_rate:
            raise ValueError(
                f"start_rate {self.start_rate:g} is above max_rate {self.max_rate:g} ops/s; "
                "lower start_rate or raise max_rate"
            )
        return self


def rate_share(level: Level) -> float | None:
    """``66%`` -> 0.66; None for an absolute rate (a number)."""
    if isinstance(level, str):
        match = _PERCENT.match(level)
        if match:
            return float(match.group(1)) / 100.0
    return None


def is_best(level: Level) -> bool:
    """Whether a threads level is ``best``."""
    return isinstance(level, str) and level.strip().lower() == BEST


def is_relative(kind: Literal["rate", "threads"], level: Level) -> bool:
    """Whether a ``rate`` or ``threads`` level needs the discover step."""
    return rate_share(level) is not None if kind == "rate" else is_best(level)


def rate_level_problems(level: Level) -> list[str]:
    """What is wrong with a ``rate`` level: a number of ops/s or a share such as 66%."""
    if isinstance(level, str):
        share = rate_share(level)
        if share is None:
            return [
                f"expected ops/s (2000) or a share of the discovered capacity (66%), got {level!r}"
            ]
        if not 0 < share * 100 <= MAX_SHARE_PCT:
            return [f"{level!r}: a share of capacity is above 0% and at most {MAX_SHARE_PCT:g}%"]
        return []
    if isinstance(level, bool) or not isinstance(level, int | float) or level <= 0:
        return [
            f"expected a rate in operations per second (> 0) or a share such as 66%, got {level!r}"
        ]
    return []


def threads_level_problems(level: Level) -> list[str]:
    """What is wrong with a ``threads`` level: an integer >= 1 or ``best``."""
    if is_best(level):
        return []
    if isinstance(level, bool) or not isinstance(level, int) or level < 1:
        return [f"expected an integer >= 1 or best (the thread ramp's), got {level!r}"]
    return []


def section_problems(section: Mapping[str, object]) -> list[str]:
    """The ``discover`` section's values the model cannot judge (units, shares)."""
    from casslab.capacity.find_settings import parse_error_share, parse_slo_ms
    from casslab.errors import ConfigError

    problems: list[str] = []
    p99 = section.get("p99")
    if isinstance(p99, str):
        try:
            parse_slo_ms(p99, option="discover.p99")
        except ConfigError as error:
            problems.append(str(error))
    errors = section.get("errors")
    if isinstance(errors, str):
        try:
            parse_error_share(errors, option="discover.errors")
        except ConfigError as error:
            problems.append(str(error))
    for key in ("step_duration", "warmup"):
        value = section.get(key)
        if isinstance(value, str) and duration_s(value) is None:
            problems.append(f"discover.{key}: {value!r} is not a duration; write e.g. 10s")
    return problems


class DiscoverNeed(Record):
    """What a trial needs from the discover step: its group, and which of its levels are
    relative (resolved by the runner once the group's capacity is known)."""

    group: str  # the levels the group's cells share, "workload=read" ("all" when none)
    rate_share: float | None = None  # 0.66: 66% of the discovered capacity
    best_threads: bool = False  # threads: best
    threads: int | None = None  # an absolute threads level beside a relative rate
    rate: float | None = None  # an absolute rate level beside threads: best
    open_loop: bool  # the search runs (discover.p99 given and a rate share)
    ramp: bool  # the thread ramp runs (threads: best, or a rate share without p99)

    def describe(self) -> str:
        """What the runner adds to the trial's command: ``rate 66% of the capacity under
        the SLO, best threads``."""
        parts = []
        if self.rate_share is not None:
            of = "the capacity under the SLO" if self.open_loop else "the thread ramp's best rate"
            parts.append(f"rate {round(100 * self.rate_share, 6):g}% of {of}")
        if self.best_threads:
            parts.append("the thread ramp's best threads")
        return ", ".join(parts)


def need_for(
    section: DiscoverSection | None,
    group: str,
    threads: Level,
    rate: Level,
) -> DiscoverNeed | None:
    """The discover need of a trial with these ``threads`` and ``rate`` levels (None: not a
    factor), or None when both are absolute."""
    share = rate_share(rate) if rate is not None else None
    best = threads is not None and is_best(threads)
    if share is None and not best:
        return None
    if section is None:
        raise ValueError("a relative level (66%, best) needs a discover: section")
    open_loop = share is not None and section.p99 is not None
    return DiscoverNeed(
        group=group,
        rate_share=share,
        best_threads=best,
        threads=None if best or threads is None else int(threads),
        rate=None if share is not None or rate is None else float(rate),
        open_loop=open_loop,
        ramp=best or (share is not None and not open_loop),
    )


def step_seconds(section: DiscoverSection) -> tuple[float, float]:
    """The section's step duration and warm-up, in seconds (checked by the loader)."""
    step = duration_s(section.step_duration)
    warmup = duration_s(section.warmup)
    if step is None or warmup is None:
        raise ValueError(f"discover: bad duration {section.step_duration!r}/{section.warmup!r}")
    return step, warmup
