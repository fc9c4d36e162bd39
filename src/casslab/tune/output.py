"""The files a tuning run leaves in its directory (rendering is pure; :func:`write_outputs`
writes them):

* ``tuning.json``: :class:`~casslab.tune.tuning_result.TuningResult` (``best``, ``default``,
  ``trials``, and the evidence);
* ``recommended.yaml``: the recommended cassandra.yaml settings as a fragment to merge into
  cassandra.yaml, the table options as a CQL ``ALTER TABLE`` in a comment;
* ``recommended.flags``: the same settings as ``--set key=value`` flags for
  ``casslab up`` / ``casslab restart``;
* ``report.html``: :mod:`casslab.tune.report`.
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

import yaml

from casslab.experiment.file.table_options import TableOptions
from casslab.store.io import atomic_write
from casslab.tune.tuning_result import TuningResult


def _flag_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def flags_text(settings: dict[str, object]) -> str:
    """``--set k=v`` flags, one line (empty when nothing differs from the defaults)."""
    parts: list[str] = []
    for key, value in settings.items():
        parts += ["--set", f"{key}={_flag_value(value)}"]
    return shlex.join(parts)


def table_cql(table: dict[str, object], keyspace: str, name: str = "<table>") -> str | None:
    """``ALTER TABLE ks.t WITH ...`` for the table options, or None when there are none."""
    if not table:
        return None
    options = TableOptions.model_validate(table)
    return f"ALTER TABLE {keyspace}.{name} WITH {options.to_cql()};"


def recommended_yaml(result: TuningResult, keyspace: str) -> str:
    """The recommendation as a cassandra.yaml fragment (see the module docstring)."""
    rec = result.recommendation
    lines = [
        f"# casslab tune {result.name}: {rec.verdict.value}",
        f"# objective: {result.objective}",
        *(f"# {line}" for line in _wrap(rec.sentence)),
        "# cassandra.yaml settings (merge into cassandra.yaml, or see recommended.flags):",
    ]
    body = yaml.safe_dump(rec.settings, sort_keys=False).strip() if rec.settings else "{}"
    lines.append(body)
    cql = table_cql(rec.table, keyspace)
    if cql is not None:
        lines += ["# table options of the measured table (CQL):", f"#   {cql}"]
    return "\n".join(lines) + "\n"


def _wrap(text: str, width: int = 96) -> list[str]:
    out: list[str] = []
    line = ""
    for word in text.split():
        if line and len(line) + 1 + len(word) > width:
            out.append(line)
            line = word
        else:
            line = f"{line} {word}".strip()
    return [*out, line] if line else out


def write_outputs(result: TuningResult, run_dir: Path, keyspace: str) -> list[Path]:
    """Write ``tuning.json``, ``recommended.yaml`` and ``recommended.flags``; their paths."""
    paths = [
        atomic_write(run_dir / "tuning.json", result.model_dump_json(indent=2)),
        atomic_write(run_dir / "recommended.yaml", recommended_yaml(result, keyspace)),
        atomic_write(
            run_dir / "recommended.flags", flags_text(result.recommendation.settings) + "\n"
        ),
    ]
    return paths
