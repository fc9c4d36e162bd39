"""The load clients of a trial's preload and measured phase: one engine on this machine
(the default), ``clients: N`` engines on this machine, or one engine on each ``clients:``
host of an inventory (``clients: clients.yaml``; and, when ``clients`` is not given, the
``clients:`` of the inventory a ``cluster: {hosts: ...}`` experiment runs on).

The workload is split into disjoint shares and the clients' output merged exactly
(the run's :class:`casslab.load.session.LoadSession`); the trial keeps the merged
records in its ``engine.jsonl`` and the merged HDR log as its ``latency.hlog``, as one
engine's, and each client's own output under ``clients/`` (preload: ``preload/clients/``).
A client that fails fails the trial, named with its reason; what the others measured is
written first. The JVM warm-up and ``discover:`` steps run one local engine, and the
engines' own processes are not sampled (one engine's are, under node ``engine``).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from casslab.engine_contract.workload_spec import WorkloadSpec
from casslab.errors import ConfigError, ExperimentError
from casslab.experiment.file.experiment_model import Experiment
from casslab.experiment.file.hosts_checks import hosts_of, hosts_path
from casslab.load.engine import RECORDS_FILE
from casslab.load.merge import MergedRun
from casslab.load.session import LoadClients, LoadSession
from casslab.remote.inventory import load_inventory

CLIENTS_FIELD = "clients"
CLIENTS_DIR = "clients"
MERGED_RUN = "merged.json"


def _inventory_clients(path: Path, what: str) -> LoadClients:
    inventory = load_inventory(path)
    if not inventory.clients:
        raise ConfigError(
            f"{what}: inventory {inventory.path} has no `clients:`; list the hosts that run "
            "the load engine as clients: [{address: 10.0.0.21, user: root, key: "
            "~/.ssh/id_ed25519}] (docs/clients.md)"
        )
    return LoadClients(len(inventory.clients), inventory)


def clients_of(experiment: Experiment, base_dir: Path | None) -> LoadClients | None:
    """The trial's load clients (None: one engine on this machine). Raises
    :class:`ConfigError` for an inventory that does not read or lists no ``clients:``."""
    value = experiment.clients
    if value is None:
        hosts = hosts_of(experiment, base_dir)
        if hosts is None or not load_inventory(hosts).clients:
            return None
        return _inventory_clients(hosts, "cluster.hosts")
    if isinstance(value, int):
        return None if value == 1 else LoadClients(value)
    return _inventory_clients(hosts_path(value, base_dir), f"clients: {value}")


def clients_problems(data: Mapping[str, Any], base_dir: Path | None) -> list[str]:
    """Problems of the file's ``clients`` field (a count, or an inventory with clients)."""
    value = data.get(CLIENTS_FIELD)
    if not isinstance(value, str) or not value.strip():
        return []  # a count, or not a valid value: the model's check
    try:
        _inventory_clients(hosts_path(value, base_dir), "clients")
    except ConfigError as error:
        return [f"clients: {error}"]
    return []


def run_in(
    spec: WorkloadSpec,
    clients: LoadClients,
    folder: Path,
    *,
    session: LoadSession,
    hdr_log: Path | None,
    timeout_s: float | None,
) -> MergedRun:
    """:func:`run_merged` into a phase's ``folder`` as one engine's output lies there: the
    merged records its ``engine.jsonl``, each client's output under ``clients/``."""
    return run_merged(
        spec,
        clients,
        folder / CLIENTS_DIR,
        session=session,
        records=folder / RECORDS_FILE,
        hdr_log=hdr_log,
        timeout_s=timeout_s,
    )


def run_merged(
    spec: WorkloadSpec,
    clients: LoadClients,
    workdir: Path,
    *,
    session: LoadSession,
    records: Path,
    hdr_log: Path | None,
    timeout_s: float | None,
) -> MergedRun:
    """Run ``spec`` from ``clients`` in ``session`` (each client's output under
    ``workdir``), write the merged records to ``records`` and the merged HDR log to
    ``hdr_log``, then raise :class:`ExperimentError` naming every client that failed."""
    workdir.mkdir(parents=True, exist_ok=True)
    output = spec.output.model_copy(update={"hdr_log": None})  # each client's own
    alone = spec.model_copy(update={"output": output})
    merged = session.run_clients(alone, clients, workdir, timeout_s=timeout_s)
    run = merged.run
    (workdir / MERGED_RUN).write_text(run.model_dump_json(indent=2) + "\n", encoding="utf-8")
    lines = [*run.intervals, *([run.summary] if run.summary else []), *run.errors]
    records.parent.mkdir(parents=True, exist_ok=True)
    records.write_text("".join(line.model_dump_json() + "\n" for line in lines), encoding="utf-8")
    if hdr_log is not None and merged.hlog:
        hdr_log.write_text(merged.hlog, encoding="utf-8")
    if run.failed:
        named = "; ".join(
            f"{failure.client}: {failure.reason}"
            + (f" (stderr: {failure.stderr_tail[-300:]})" if failure.stderr_tail else "")
            for failure in run.failed
        )
        raise ExperimentError(
            f"{len(run.failed)} of {clients.where} failed ({named}); the others' records "
            f"are in {records}, each client's under {workdir}"
        )
    if run.summary is None:
        raise ExperimentError(f"no load client finished; see {workdir}")
    return run
