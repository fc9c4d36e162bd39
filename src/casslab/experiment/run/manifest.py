"""A run's ``manifest.json``: written when the run starts or resumes, and when it ends.

The manifest records what a run's numbers depend on: casslab, Cassandra, JDK and engine
versions, the host, the git revision, the resolved experiment and its plan's digest. A
resumed run keeps its manifest, and must be of the same plan.
"""

from __future__ import annotations

from collections.abc import Mapping
from contextlib import suppress
from datetime import UTC, datetime

from casslab import __version__
from casslab.errors import CasslabError, ExperimentError
from casslab.experiment.design.plan_records import Plan
from casslab.experiment.file.experiment_model import Experiment
from casslab.experiment.run.host_facts import git_revision, host_facts
from casslab.store.io import write_record
from casslab.store.layout import RunLayout
from casslab.store.run_records import Discovered, RunManifest, read_manifest


def new_manifest(
    experiment: Experiment,
    plan: Plan,
    run_id: str,
    jvm_warmup_s: float,
    engine_cpus: str | None = None,
    injectable_clock: bool = False,
) -> RunManifest:
    """The manifest of a run that starts now (probes the JDK, the host and git);
    ``injectable_clock``: the run's nodes run casslab's clock."""
    from casslab.cluster import class_share, distribution
    from casslab.host.jdk import probe

    jdk_version = None
    with suppress(CasslabError):
        jdk_version = probe().version
    return RunManifest(
        experiment_name=experiment.name,
        run_id=run_id,
        casslab_version=__version__,
        cassandra_version=", ".join(
            dict.fromkeys(t.version or distribution.DEFAULT_VERSION for t in plan.trials)
        )
        or experiment.cluster.version
        or distribution.DEFAULT_VERSION,  # each version the trials run (cluster.version)
        jdk_version=jdk_version,
        git_revision=git_revision(),
        host=host_facts(),
        experiment=experiment.to_file_dict(),
        plan_digest=plan.digest,
        jvm_warmup_s=jvm_warmup_s,
        data_seed=experiment.data_seed,
        engine_cpus=engine_cpus,
        injectable_clock=injectable_clock,
        class_sharing=class_share.enabled(),
        started_at=datetime.now(UTC),
        trials_planned=len(plan.trials),
    )


def start_manifest(
    layout: RunLayout,
    experiment: Experiment,
    plan: Plan,
    jvm_warmup_s: float,
    *,
    engine_cpus: str | None = None,
    injectable_clock: bool = False,
) -> RunManifest:
    """Write and return the manifest of a run that starts: the run's own when it has one
    (a resume; its end time cleared), else a new one. Raises :class:`ExperimentError`
    when the run's manifest is of another plan (the experiment file changed), or its
    trials ran with their load engine placed otherwise (``--engine-cpus``): one run's
    trials are measured alike."""
    if layout.manifest.is_file():
        existing = read_manifest(layout.manifest)
        if existing.plan_digest not in (None, plan.digest):
            raise ExperimentError(
                f"cannot resume {layout.root}: the experiment file changed since "
                "that run started (its plan differs); run without --resume to start a "
                "new run"
            )
        if existing.engine_cpus != engine_cpus:
            raise ExperimentError(
                f"cannot resume {layout.root}: its trials ran with "
                f"{_engine_placement(existing.engine_cpus)} and this command asks for "
                f"{_engine_placement(engine_cpus)}; resume with "
                f"{_engine_option(existing.engine_cpus)}, or run without --resume to start "
                "a new run"
            )
        manifest = existing.model_copy(update={"ended_at": None})
    else:
        manifest = new_manifest(
            experiment, plan, layout.root.name, jvm_warmup_s, engine_cpus, injectable_clock
        )
    write_record(layout.manifest, manifest)
    return manifest


def end_manifest(
    layout: RunLayout,
    manifest: RunManifest,
    engine_version: str | None,
    *,
    trials_planned: int | None = None,
    stop_rule: str | None = None,
    discovered: Mapping[str, Discovered] | None = None,
) -> None:
    """Write the manifest of a run that ends now, with the engine version it ran, the
    trials its plan grew to, what ended its iterations and what its discover step found."""
    update: dict[str, object] = {"ended_at": datetime.now(UTC), "engine_version": engine_version}
    if discovered:
        update["discovered"] = dict(discovered)
    if trials_planned is not None:
        update["trials_planned"] = trials_planned
    if stop_rule is not None:
        update["stop_rule"] = stop_rule
    ended = manifest.model_copy(update=update)
    write_record(layout.manifest, ended)


def _engine_placement(engine_cpus: str | None) -> str:
    return "the load engine unpinned" if engine_cpus is None else f"--engine-cpus {engine_cpus}"


def _engine_option(engine_cpus: str | None) -> str:
    return "no --engine-cpus" if engine_cpus is None else f"--engine-cpus {engine_cpus}"
