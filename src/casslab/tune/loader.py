"""Load and check a tune file: the experiment part by the experiment loader's own checks,
the ``tune:`` section by :mod:`casslab.tune.space_parse` and :mod:`casslab.tune.spec`;
every problem of the file at once, before anything starts.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from casslab.errors import ExperimentValidationError
from casslab.experiment.file import experiment_loader
from casslab.experiment.file.class_checks import class_problems
from casslab.experiment.file.experiment_model import Experiment
from casslab.experiment.file.file_problems import pydantic_problems
from casslab.experiment.file.jdk_checks import VERSION_FORM
from casslab.experiment.file.table_options import TableOptions
from casslab.record import Record
from casslab.tune.space_parse import parse_space
from casslab.tune.spec import TuneSection
from casslab.yaml_reader import parse_yaml

REFUSED = {
    "factors": "the search decides what varies: name the settings in tune.space",
    "baseline": "the default configuration is the file's own cluster.config and table",
    "extra_cells": "the search decides which configurations run",
    "design": "the search decides which configurations run",
    "iterations": "each candidate runs once; tune.confirm.repetitions re-measures the best",
}


class TuneFile(Record):
    """A checked tune file: the base experiment (no factors) and its ``tune:`` section."""

    experiment: Experiment
    tune: TuneSection


def _tune_problems(raw: Any, data: Mapping[str, Any]) -> tuple[TuneSection | None, list[str]]:
    if not isinstance(raw, Mapping):
        return None, [
            "tune: required, a mapping with space, objective and budget (see docs/tune.md)"
        ]
    cluster = data.get("cluster") if isinstance(data.get("cluster"), Mapping) else {}
    assert isinstance(cluster, Mapping)
    config = cluster.get("config") if isinstance(cluster.get("config"), Mapping) else {}
    version = cluster.get("version")
    try:
        table = TableOptions.model_validate(data.get("table") or {})
    except ValidationError:
        table = TableOptions()  # the experiment checks report it
    space, problems = parse_space(
        raw.get("space"), config or {}, table, str(version) if version is not None else None
    )
    rest = {k: v for k, v in raw.items() if k != "space"}
    try:
        section = TuneSection.model_validate(
            {**rest, "space": space.model_dump() if space else {"params": ()}}
        )
    except ValidationError as error:
        found = pydantic_problems(error, {**rest, "space": {}}, prefix=("tune",))
        problems += [p for p in found if not p.startswith("tune.space")]
        return None, problems
    return (section if space is not None and not problems else None), problems


def check(data: Any, source: str = "<tune file>", base_dir: Path | None = None) -> TuneFile:
    """The tune file in ``data`` (parsed YAML), or :class:`ExperimentValidationError`
    listing every problem as ``<path>: <message>``."""
    if not isinstance(data, Mapping):
        raise ExperimentValidationError(
            source, ["expected a mapping with name, cluster, workload, measure and tune"]
        )
    problems = [f"{key}: not in a tune file; {why}" for key, why in REFUSED.items() if key in data]
    base = {k: v for k, v in data.items() if k != "tune" and k not in REFUSED}
    experiment: Experiment | None = None
    try:
        experiment = experiment_loader.check({**base, "iterations": 1}, source, base_dir)
    except ExperimentValidationError as error:
        problems += error.problems
    section, more = _tune_problems(data.get("tune"), data)
    problems += more
    cluster = data.get("cluster")
    version = cluster.get("version") if isinstance(cluster, Mapping) else None
    if version is None or VERSION_FORM.fullmatch(str(version)):
        tune_only = {"tune": data.get("tune")}
        problems += class_problems(tune_only, None if version is None else str(version))
    if problems or experiment is None or section is None:
        raise ExperimentValidationError(source, problems or ["invalid tune file"])
    return TuneFile(experiment=experiment, tune=section)


def load(path: Path | str) -> TuneFile:
    """Read and check the tune file at ``path``."""
    shipped = "shipped studies are experiments/tune/*.yaml"
    text, file = experiment_loader.read_text(path, "tune", shipped)
    return check(parse_yaml(text, str(file), ExperimentValidationError), str(file), file.parent)
