"""Inventory and experiment files for unit tests of experiments on hosts and clients:
an inventory whose key file exists (nothing connects), and an experiment parsed, or its
problems, relative to a folder."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest

from casslab.errors import ExperimentValidationError
from casslab.experiment.file import experiment_loader


def write_inventory(
    folder: Path, name: str = "hosts.yaml", *, hosts: int = 3, clients: int = 0
) -> Path:
    """``folder/name`` naming ``hosts`` database hosts 10.9.0.x and ``clients`` client hosts
    10.9.1.x, with a key file ``id_ed25519`` beside it (not read by the checks)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "id_ed25519").write_text("not read by the checks\n")
    lines = ["hosts:"]
    lines += [f"  - {{address: 10.9.0.{n}, user: root, key: id_ed25519}}" for n in range(hosts)]
    if clients:
        lines.append("clients:")
        lines += [
            f"  - {{address: 10.9.1.{n}, user: root, key: id_ed25519}}" for n in range(clients)
        ]
    path = folder / name
    path.write_text("\n".join(lines) + "\n")
    return path


def parse_in(text: str, folder: Path) -> Any:
    """The experiment in ``text``, its paths relative to ``folder``."""
    return experiment_loader.parse(textwrap.dedent(text), "e.yaml", base_dir=folder)


def problems_in(text: str, folder: Path) -> list[str]:
    """The problems the loader finds in ``text`` (it must find some)."""
    with pytest.raises(ExperimentValidationError) as caught:
        parse_in(text, folder)
    return caught.value.problems
