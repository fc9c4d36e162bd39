"""The load clients of an experiment (``clients: N`` engines here, or an inventory's
``clients:`` hosts): which apply, and what is refused before anything starts."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest

from casslab.errors import ExperimentError
from casslab.experiment import loader
from casslab.experiment.design import expand
from casslab.experiment.load_clients import TrialClients, clients_of
from casslab.experiment.model import ExperimentValidationError
from casslab.experiment.specs import check_engine_specs

FILE = """
name: with-clients
factors: {threads: [2, 4]}
preload: "write n=100"
workload: write
measure: "duration=2s"
iterations: 1
"""


def _inventory(folder: Path, name: str, *, clients: int, hosts: int = 1) -> Path:
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


def _parse(text: str, folder: Path) -> Any:
    return loader.parse(textwrap.dedent(text), "e.yaml", base_dir=folder)


def _problems(text: str, folder: Path) -> list[str]:
    with pytest.raises(ExperimentValidationError) as caught:
        _parse(text, folder)
    return caught.value.problems


def test_one_engine_here_unless_the_file_asks_for_more(tmp_path: Path) -> None:
    assert clients_of(_parse(FILE, tmp_path), tmp_path) is None
    assert clients_of(_parse(FILE + "clients: 1\n", tmp_path), tmp_path) is None
    assert clients_of(_parse(FILE + "clients: 3\n", tmp_path), tmp_path) == TrialClients(3)


def test_an_inventory_runs_one_engine_on_each_of_its_clients(tmp_path: Path) -> None:
    _inventory(tmp_path / "lab", "load.yaml", clients=2)
    experiment = _parse(FILE + "clients: lab/load.yaml\n", tmp_path)
    clients = clients_of(experiment, tmp_path)
    assert clients is not None
    assert clients.n == 2
    assert clients.inventory is not None
    assert [h.address for h in clients.inventory.clients] == ["10.9.1.0", "10.9.1.1"]
    assert "the 2 clients: hosts of" in clients.where


def test_the_hosts_inventory_gives_its_clients_unless_clients_says_otherwise(
    tmp_path: Path,
) -> None:
    on_hosts = FILE + "cluster: {hosts: lab/hosts.yaml}\n"
    _inventory(tmp_path / "lab", "hosts.yaml", clients=2)
    clients = clients_of(_parse(on_hosts, tmp_path), tmp_path)
    assert clients is not None
    assert clients.n == 2
    assert clients.inventory is not None
    assert clients_of(_parse(on_hosts + "clients: 1\n", tmp_path), tmp_path) is None
    _inventory(tmp_path / "lab", "hosts.yaml", clients=0)
    assert clients_of(_parse(on_hosts, tmp_path), tmp_path) is None


def test_bad_clients_are_named_before_anything_starts(tmp_path: Path) -> None:
    [zero] = _problems(FILE + "clients: 0\n", tmp_path)
    assert "clients" in zero
    assert "1 or more" in zero
    [missing] = _problems(FILE + "clients: lab/nowhere.yaml\n", tmp_path)
    assert missing.startswith("clients: ")
    assert "nowhere.yaml" in missing
    _inventory(tmp_path / "lab", "none.yaml", clients=0)
    [empty] = _problems(FILE + "clients: lab/none.yaml\n", tmp_path)
    assert "has no `clients:`" in empty
    assert "docs/clients.md" in empty


def test_a_workload_the_clients_cannot_share_is_refused_before_any_trial(
    tmp_path: Path,
) -> None:
    """Two threads cannot be shared by three clients: the run stops in its first second."""
    plan = expand(_parse(FILE + "clients: 3\n", tmp_path))
    with pytest.raises(ExperimentError) as caught:
        check_engine_specs(plan, tmp_path, clients=3)
    assert "cannot be shared by the 3 load clients" in str(caught.value)
    assert "nothing was run" in str(caught.value)
