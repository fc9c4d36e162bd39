"""The load clients of an experiment (``clients: N`` engines here, or an inventory's
``clients:`` hosts): which apply, and what is refused before anything starts."""

from __future__ import annotations

from pathlib import Path

import pytest

from casslab.errors import ExperimentError
from casslab.experiment.design.plan_expansion import expand
from casslab.experiment.run.engine_specs import check_engine_specs
from casslab.experiment.run.load_clients import clients_of
from casslab.load.session import LoadClients
from inventory_files import parse_in, problems_in, write_inventory

FILE = """
name: with-clients
factors: {threads: [2, 4]}
preload: "write n=100"
workload: write
measure: "duration=2s"
iterations: 1
"""


def test_one_engine_here_unless_the_file_asks_for_more(tmp_path: Path) -> None:
    assert clients_of(parse_in(FILE, tmp_path), tmp_path) is None
    assert clients_of(parse_in(FILE + "clients: 1\n", tmp_path), tmp_path) is None
    assert clients_of(parse_in(FILE + "clients: 3\n", tmp_path), tmp_path) == LoadClients(3)


def test_an_inventory_runs_one_engine_on_each_of_its_clients(tmp_path: Path) -> None:
    write_inventory(tmp_path / "lab", "load.yaml", hosts=1, clients=2)
    experiment = parse_in(FILE + "clients: lab/load.yaml\n", tmp_path)
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
    write_inventory(tmp_path / "lab", "hosts.yaml", hosts=1, clients=2)
    clients = clients_of(parse_in(on_hosts, tmp_path), tmp_path)
    assert clients is not None
    assert clients.n == 2
    assert clients.inventory is not None
    assert clients_of(parse_in(on_hosts + "clients: 1\n", tmp_path), tmp_path) is None
    write_inventory(tmp_path / "lab", "hosts.yaml", hosts=1, clients=0)
    assert clients_of(parse_in(on_hosts, tmp_path), tmp_path) is None


def test_bad_clients_are_named_before_anything_starts(tmp_path: Path) -> None:
    [zero] = problems_in(FILE + "clients: 0\n", tmp_path)
    assert "clients" in zero
    assert "1 or more" in zero
    [missing] = problems_in(FILE + "clients: lab/nowhere.yaml\n", tmp_path)
    assert missing.startswith("clients: ")
    assert "nowhere.yaml" in missing
    write_inventory(tmp_path / "lab", "none.yaml", hosts=1, clients=0)
    [empty] = problems_in(FILE + "clients: lab/none.yaml\n", tmp_path)
    assert "has no `clients:`" in empty
    assert "docs/clients.md" in empty


def test_a_workload_the_clients_cannot_share_is_refused_before_any_trial(
    tmp_path: Path,
) -> None:
    """Two threads cannot be shared by three clients: the run stops in its first second."""
    plan = expand(parse_in(FILE + "clients: 3\n", tmp_path))
    with pytest.raises(ExperimentError) as caught:
        check_engine_specs(plan, tmp_path, clients=3)
    assert "cannot be shared by the 3 load clients" in str(caught.value)
    assert "nothing was run" in str(caught.value)
