"""Load and check an experiment file: every problem at once, each with its path.

:func:`load` reads a YAML file (its only I/O) and returns an :class:`Experiment`, or
raises :class:`ExperimentValidationError` whose ``problems`` list every problem as
``<path>: <message>``, e.g. ``factors.config.memtable_flush_writers[2]: expected an
integer, got 'ten'``. YAML syntax errors give the line and column
(:mod:`casslab.yaml_reader`); each field's own shape is the model's
(:mod:`casslab.experiment.file.experiment_model`), checks across fields and against other parts are
in :mod:`casslab.experiment.file.file_checks` and, for datacenters,
:mod:`casslab.experiment.file.topology_checks`.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from casslab.cluster.presets import preset_problems
from casslab.errors import ExperimentError, ExperimentValidationError
from casslab.experiment.file.class_checks import class_problems
from casslab.experiment.file.design_size import design_size_problems
from casslab.experiment.file.existing_checks import existing_problems
from casslab.experiment.file.experiment_model import Experiment, Factor
from casslab.experiment.file.fault_checks import (
    FileClusters,
    after_operations_problems,
    fault_problems,
)
from casslab.experiment.file.file_checks import (
    cell_problems,
    cluster_section_problems,
    factor_problems,
    kpis_problems,
    section_cluster_fields,
    settings_problems_all,
    until_problems,
    versions_of,
    workload_problems,
)
from casslab.experiment.file.file_problems import in_file_order, pydantic_problems
from casslab.experiment.file.hosts_checks import hosts_problems
from casslab.experiment.file.jdk_checks import VERSION_FORM, section_version_problems
from casslab.experiment.file.other_kinds import other_kind_problem
from casslab.experiment.file.topology_checks import topology_problems
from casslab.experiment.file.used_cluster_checks import used_cluster_problems
from casslab.experiment.run.load_clients import clients_problems
from casslab.experiment.steps.claims.claims_checks import claim_cell_problems, claims_problems
from casslab.experiment.steps.discover.discover_checks import discover_problems
from casslab.experiment.steps.skew.skew_checks import skew_problems
from casslab.faults.model import timeline_problems
from casslab.input_files import InputFileError, read_input
from casslab.load.credentials import mask_message
from casslab.yaml_reader import parse_yaml


def check(data: Any, source: str = "<experiment>", base_dir: Path | None = None) -> Experiment:
    """The experiment in ``data`` (a parsed YAML document), or raise listing every problem.

    ``base_dir`` is where files named in commands (stress profiles, YCSB ``-P`` files) are
    looked up: the experiment file's folder. None: the current directory.
    """
    if not isinstance(data, Mapping):
        kind = "empty" if data is None else f"a {type(data).__name__}"
        raise ExperimentValidationError(
            source, [f"expected a mapping with name, factors, workload, measure, ...; got {kind}"]
        )
    other_kind = other_kind_problem(data, source)
    if other_kind is not None:
        raise ExperimentValidationError(source, [other_kind])
    known = {field.alias or name for name, field in Experiment.model_fields.items()}
    if data and not any(isinstance(key, str) and key in known for key in data):
        raise ExperimentValidationError(  # its keys are not quoted: it may be any file
            source,
            [
                f"not an experiment file: none of its {len(data)} top-level key(s) is an "
                "experiment field (name, cluster, factors, workload, measure, ...); is it "
                "the right file?"
            ],
        )
    problems: list[str] = design_size_problems(data)
    if problems:  # checking every level of a huge design would itself take too long
        raise ExperimentValidationError(source, problems)
    experiment: Experiment | None = None
    try:
        experiment = Experiment.model_validate(data)
    except ValidationError as error:
        problems += pydantic_problems(error, data)
    cluster = data.get("cluster")
    version = cluster.get("version") if isinstance(cluster, Mapping) else None
    version_text = str(version) if version is not None else None
    if isinstance(cluster, Mapping) and isinstance(cluster.get("config"), Mapping):
        config_problems = settings_problems_all(cluster["config"], versions_of(data))
        problems += [f"cluster.config.{p}" for p in config_problems]
    for each_version in versions_of(data):  # every level of a cluster.version factor
        if each_version is None or VERSION_FORM.fullmatch(each_version):
            problems += class_problems(data, each_version, base_dir=base_dir)
    problems += cluster_section_problems(data)
    problems += section_version_problems(data)
    preset = cluster.get("preset") if isinstance(cluster, Mapping) else None
    if preset is not None:
        problems += [f"cluster.preset: {p}" for p in preset_problems(preset, versions_of(data))]
    good: list[Factor] = []
    factors = data.get("factors")
    if isinstance(factors, Mapping):
        of_factors, parsed, good = factor_problems(
            factors, version_text, section_cluster_fields(data)
        )
        problems += of_factors
        baseline = data.get("baseline")
        problems += cell_problems("baseline", baseline, factors, parsed)
        extra = data.get("extra_cells")
        for index, cell in enumerate(extra if isinstance(extra, list) else []):
            problems += cell_problems(f"extra_cells[{index}]", cell, factors, parsed)
    problems += kpis_problems(data.get("kpis"))
    problems += until_problems(data.get("iterations"))
    problems += workload_problems(data, good, base_dir)
    problems += topology_problems(data, good, base_dir)
    problems += discover_problems(data, good)
    problems += existing_problems(data)
    problems += used_cluster_problems(data)
    problems += hosts_problems(data, base_dir)
    problems += clients_problems(data, base_dir)
    if not problems:
        problems += skew_problems(data, experiment)
    if experiment is not None and experiment.faults:
        clusters = FileClusters(data, None if problems else experiment)  # expanded if valid
        problems += fault_problems(data, experiment.faults, clusters)
    if experiment is not None:
        problems += after_operations_problems(data, experiment.faults)
    if experiment is not None and experiment.faults and _plain_nodes(data):
        problems += timeline_problems(experiment.faults, experiment.cluster.nodes)
    if experiment is not None:
        problems += claims_problems(data, experiment.claims, experiment.kpis, good)
    if experiment is not None and experiment.claims and not problems:
        from casslab.experiment.design.plan_expansion import expand

        problems += claim_cell_problems(experiment.claims, expand(experiment))
    problems = in_file_order(list(dict.fromkeys(map(mask_message, problems))), list(data))
    if problems or experiment is None:
        raise ExperimentValidationError(source, problems or ["invalid experiment"])
    return experiment


def _plain_nodes(data: Mapping[str, Any]) -> bool:
    """The file's ``cluster.nodes`` is the node count (no topology, hosts, existing
    cluster or ``nodes`` factor sets it)."""
    cluster = data.get("cluster")
    fields = cluster if isinstance(cluster, Mapping) else {}
    factors = data.get("factors")
    varied = isinstance(factors, Mapping) and "nodes" in factors
    return not varied and all(fields.get(k) is None for k in ("topology", "hosts", "use"))


def parse(text: str, source: str = "<string>", base_dir: Path | None = None) -> Experiment:
    """The experiment in YAML ``text``; ``source`` names it in messages (see :func:`check`)."""
    return check(parse_yaml(text, source, ExperimentValidationError), source, base_dir)


def read_text(path: Path | str, kind: str, shipped: str) -> tuple[str, Path]:
    """The text of the ``kind`` file at ``path`` ("experiment", "tune") and its path; an
    :class:`ExperimentError` naming the file, the reason and the fix (``shipped``: where
    casslab's own such files are) when it cannot be read, is not a regular file, is too
    large or is not UTF-8 text (:func:`casslab.input_files.read_input`)."""
    file = Path(path)
    try:
        return read_input(file, what=f"{kind} file", fix=f"check the path ({shipped})"), file
    except InputFileError as error:
        raise ExperimentError(str(error)) from None


def load(path: Path | str) -> Experiment:
    """Read and check the experiment file at ``path``."""
    text, file = read_text(path, "experiment", "shipped experiments are in experiments/")
    return parse(text, str(file), file.parent)
