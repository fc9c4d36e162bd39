"""The discover step of a run (:mod:`casslab.experiment.steps.discover.discover_section`): once per
group of cells, before the group's first trial, find the capacity its rate shares are of (the
open-loop search of ``casslab capacity find``) and the best thread count (the thread ramp),
on the trial's own cluster, data and workload; then give each trial its measured command.

What it found is written to ``discovered.json`` as soon as it is known (and to the manifest
at the end), so a resumed run reuses it; each search's engine files and ``find.json`` /
``ramp.json`` stay under ``discover/<group>/``. A step that finds no capacity (no rate
meets the SLO) is kept too: the group's trials fail with its reason instead of searching
again.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from pathlib import Path

from casslab.capacity.find import FindResult, FindStatus, find_capacity
from casslab.capacity.find_settings import FindSettings, parse_error_share, parse_slo_ms
from casslab.capacity.probe import EngineMeasure
from casslab.capacity.ramp import RampResult, run_ramp
from casslab.engine_contract.workload_spec import ClosedLoop, Connection, OpenLoop, ThreadRamp
from casslab.errors import ExperimentError, StoreError
from casslab.experiment.design.plan_records import Trial
from casslab.experiment.file.load_commands import Command, compose_command
from casslab.experiment.run.engine_specs import spec_for
from casslab.experiment.steps.discover.discover_section import (
    DiscoverNeed,
    DiscoverSection,
    step_seconds,
)
from casslab.load import defaults
from casslab.load.front_end import SearchLoad
from casslab.load.session import LoadSession
from casslab.store.layout import RunLayout
from casslab.store.run_records import Discovered


def read_discovered(layout: RunLayout) -> dict[str, Discovered]:
    """What an earlier (resumed) run of this directory found, by group."""
    if not layout.discovered.is_file():
        return {}
    try:
        data = json.loads(layout.discovered.read_text(encoding="utf-8"))
        return {group: Discovered.model_validate(d) for group, d in data.items()}
    except (OSError, ValueError) as error:
        raise StoreError(
            f"{layout.discovered}: cannot read what the discover step found ({error}); "
            "remove the file to discover again"
        ) from error


def _dir_name(group: str) -> str:
    """A directory name for a group: readable, unique by a digest."""
    readable = re.sub(r"[^A-Za-z0-9._=+-]+", "-", group)[:48].strip("-.") or "group"
    return f"{readable}-{hashlib.sha256(group.encode()).hexdigest()[:6]}"


def load_command(
    spec_command: Command, connection: Connection, base_dir: Path | None, data_seed: int
) -> SearchLoad:
    """The trial's workload as a search's command: its engine spec (the search replaces the
    rate and the stop), its concurrency bound and the ramp's thread bounds."""
    spec = spec_for(spec_command, connection, 0, base_dir, data_seed=data_seed)
    low, high = defaults.STRESS_RAMP_MIN_THREADS, defaults.STRESS_RAMP_MAX_THREADS
    in_flight = OpenLoop(rate_per_s=1.0).max_in_flight
    rate = spec.rate
    if isinstance(rate, ClosedLoop):
        in_flight = rate.threads
    elif isinstance(rate, OpenLoop):
        in_flight = rate.max_in_flight
    elif isinstance(rate, ThreadRamp):
        low, high = rate.min, rate.max
    return SearchLoad(
        front_end=spec_command.tool,
        display=spec_command.text,
        spec=spec,
        max_in_flight=in_flight,
        ramp_min_threads=low,
        ramp_max_threads=max(low, high),
    )


def _search(
    command: SearchLoad, section: DiscoverSection, workdir: Path, session: LoadSession
) -> FindResult:
    step_s, warmup_s = step_seconds(section)
    settings = FindSettings(
        p99_slo_ms=parse_slo_ms(section.p99 or "", option="discover.p99"),
        error_share=parse_error_share(section.errors, option="discover.errors"),
        start_rate_per_s=min(section.start_rate, section.max_rate),
        min_rate_per_s=min(10.0, section.start_rate),
        max_rate_per_s=section.max_rate,
        precision=section.precision,
        repeats=section.repeats,
        max_runs=section.max_runs,
    )
    measure = EngineMeasure(
        command, workdir, step_duration_s=step_s, warmup_s=warmup_s, session=session
    )

    def save(_point: object, so_far: FindResult) -> None:
        (workdir / "find.json").write_text(so_far.model_dump_json(indent=1) + "\n")

    result = find_capacity(measure, settings, on_point=save)
    save(None, result)
    return result


def _ramp(
    command: SearchLoad, section: DiscoverSection, workdir: Path, session: LoadSession
) -> RampResult:
    step_s, warmup_s = step_seconds(section)
    slo = parse_slo_ms(section.p99, option="discover.p99") if section.p99 else None
    result = run_ramp(
        command,
        workdir,
        step_duration_s=step_s,
        warmup_s=warmup_s,
        p99_slo_ms=slo,
        session=session,
    )
    (workdir / "ramp.json").write_text(result.model_dump_json(indent=1) + "\n")
    return result


def discover(
    trial: Trial,
    need: DiscoverNeed,
    section: DiscoverSection,
    command: SearchLoad,
    workdir: Path,
    session: LoadSession,
) -> Discovered:
    """Run the group's step: the thread ramp and/or the search its levels need. With
    ``threads: best`` the search's operations in flight are bounded by the best thread
    count, as the group's trials will be."""
    started = time.monotonic()
    found: dict[str, object] = {"group": need.group, "trial_id": trial.trial_id}
    error: str | None = None
    workdir.mkdir(parents=True, exist_ok=True)
    if need.ramp:  # first: the search then bounds its concurrency as the trials will
        ramp = _ramp(command, section, workdir / "ramp", session)
        found |= {
            "best_threads": ramp.best_threads,
            "best_op_rate": ramp.op_rate,
            "p99_ms_at_best": ramp.p99_ms_at_best,
            "capacity_per_s": ramp.op_rate,
        }
        if ramp.best_threads is None:
            error = f"the thread ramp found no best step; see {workdir / 'ramp'}"
        elif need.best_threads:
            command = command.model_copy(update={"max_in_flight": ramp.best_threads})
    if need.open_loop and error is None:
        search = _search(command, section, workdir / "search", session)
        found |= {
            "p99_slo_ms": search.settings.p99_slo_ms,
            "search_status": search.status.value,
            "max_rate_per_s": search.max_rate,
            "bracket_high_per_s": search.bracket_high_per_s,
            "p99_ms_at_max": search.p99_ms_at_max,
            "runs": len(search.points),
            "capacity_per_s": search.max_rate,
        }
        if search.status is not FindStatus.FOUND or search.max_rate is None:
            outcome = (
                "no rate met the SLO"
                if search.max_rate is None
                else f"{search.max_rate:g} ops/s is not a bracketed answer"
            )
            error = (
                f"the discover search ended {search.status.value}: {outcome}; see "
                f"{workdir / 'search' / 'find.json'} and change discover: (p99, start_rate, "
                "max_rate, max_runs)"
            )
    return Discovered.model_validate(
        found | {"elapsed_s": time.monotonic() - started, "error": error}
    )


def measured_command(trial: Trial, found: Discovered) -> Command:
    """The trial's measured command with its relative levels resolved from what its group
    found; ExperimentError when the step found nothing to resolve them with."""
    need = trial.discover
    if need is None:
        return trial.workload
    if found.error is not None:
        raise ExperimentError(f"trial {trial.trial_id}: {found.error}")
    threads = found.best_threads if need.best_threads else need.threads
    rate = need.rate
    if need.rate_share is not None:
        if found.capacity_per_s is None:
            raise ExperimentError(f"trial {trial.trial_id}: the discover step found no capacity")
        rate = round(need.rate_share * found.capacity_per_s, 1)
    return compose_command(trial.workload.text, "", threads, rate)


class Discoverer:
    """The run's discover steps: what each group found, on disk as soon as it is known."""

    def __init__(self, layout: RunLayout, section: DiscoverSection | None) -> None:
        self.layout = layout
        self.section = section
        self.found = read_discovered(layout) if section is not None else {}

    def pending(self, trial: Trial) -> bool:
        """Whether ``trial``'s group must run its step before the trial."""
        return trial.discover is not None and trial.discover.group not in self.found

    def run(
        self,
        trial: Trial,
        connection: Connection,
        base_dir: Path | None,
        data_seed: int,
        session: LoadSession,
    ) -> Discovered:
        """Run the step of ``trial``'s group and keep what it found (errors of the engine
        or the cluster propagate: the trial fails, the next one of the group tries again)."""
        need, section = trial.discover, self.section
        if need is None or section is None:
            raise ExperimentError(f"trial {trial.trial_id}: no discover step to run")
        command = load_command(trial.workload, connection, base_dir, data_seed)
        workdir = self.layout.discover_dir / _dir_name(need.group)
        found = discover(trial, need, section, command, workdir, session)
        self.found[need.group] = found
        data = {g: d.model_dump(mode="json") for g, d in self.found.items()}
        self.layout.discovered.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
        return found

    def command(self, trial: Trial) -> Command:
        """The trial's measured command (its own when it has no relative level)."""
        if trial.discover is None:
            return trial.workload
        return measured_command(trial, self.found[trial.discover.group])
