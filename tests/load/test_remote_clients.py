"""The pure parts of casslab.load.remote_clients and of ``--client-hosts`` checking: where
files go on a client host, the spec as written there (no password in it), the records read
back, and the refusals before anything starts."""

from __future__ import annotations

from pathlib import Path

import pytest

from casslab.cli.stress_clients import check_clients
from casslab.engine_contract.engine_records import ErrorRecord
from casslab.engine_contract.workload_spec import (
    ClosedLoop,
    Connection,
    DistKind,
    Distribution,
    Operation,
    OpKind,
    Output,
    Statement,
    Stop,
    WorkloadSpec,
)
from casslab.errors import ConfigError, WorkloadSyntaxError
from casslab.load.credentials import ENGINE_PASSWORD_ENV
from casslab.load.remote_clients import (
    RemoteLauncher,
    client_label,
    collect,
    engine_path,
    remote_spec,
    run_dir,
)
from casslab.remote.inventory import HostSpec, load_inventory
from cli_entry import casslab, flat

FOLDER = "/var/lib/casslab/runs/r1/client-0"


def spec(
    connection: Connection, hdr_log: str | None = "/home/me/read.client-0.hlog"
) -> WorkloadSpec:
    return WorkloadSpec(
        connection=connection,
        operations=[
            Operation(
                name="write",
                kind=OpKind.WRITE,
                weight=1,
                statements=[Statement(cql="INSERT INTO ks.t (k) VALUES (1)")],
            )
        ],
        keys=Distribution(kind=DistKind.FIXED, min=1, max=1),
        rate=ClosedLoop(threads=4),
        stop=Stop(ops=10),
        output=Output(hdr_log=hdr_log, jsonl="/home/me/x.jsonl"),
    )


def test_remote_paths_and_names() -> None:
    digest = "ab" * 32
    assert engine_path("/srv/c", digest) == "/srv/c/engine/abababababababab/casslab-engine"
    assert run_dir("/srv/c", "20261124T170000Z-0a1b2c3d") == "/srv/c/runs/20261124T170000Z-0a1b2c3d"
    host = HostSpec(address="10.0.0.21", user="root", key=Path("/k"))
    assert client_label("client-1", host) == "client-1@10.0.0.21"


def test_the_remote_spec_has_its_log_in_the_run_folder_and_records_on_stdout() -> None:
    sent, env = remote_spec(
        spec(Connection(contact_points=["10.0.0.11"])), FOLDER, measured=True, environ={}
    )
    assert sent.output.hdr_log == f"{FOLDER}/latency.hlog"
    assert sent.output.jsonl is None
    assert env == {}
    unmeasured, _ = remote_spec(
        spec(Connection(contact_points=["10.0.0.11"])), FOLDER, measured=False, environ={}
    )
    assert unmeasured.output.hdr_log is None


@pytest.mark.parametrize(
    ("connection", "environ"),
    [
        (Connection(contact_points=["a"], username="u", password="pw-7"), {}),
        (Connection(contact_points=["a"], username="u", password_env="MY_PW"), {"MY_PW": "pw-7"}),
    ],
)
def test_a_password_goes_to_the_engines_environment_never_into_the_spec(
    connection: Connection, environ: dict[str, str]
) -> None:
    sent, env = remote_spec(spec(connection), FOLDER, measured=True, environ=environ)
    assert env == {ENGINE_PASSWORD_ENV: "pw-7"}
    assert sent.connection.password is None
    assert sent.connection.password_env == ENGINE_PASSWORD_ENV
    assert "pw-7" not in sent.model_dump_json()


def test_an_unset_password_variable_is_refused_with_its_name() -> None:
    connection = Connection(contact_points=["a"], username="u", password_env="NOT_SET_PW")
    with pytest.raises(ConfigError, match="NOT_SET_PW is not set"):
        remote_spec(spec(connection), FOLDER, measured=True, environ={})


def test_a_tls_ca_file_is_named_as_copied_into_the_run_folder() -> None:
    connection = Connection(contact_points=["a"], tls=True, tls_ca_file="/home/me/ca.pem")
    sent, _ = remote_spec(spec(connection), FOLDER, measured=True, environ={})
    assert sent.connection.tls_ca_file == f"{FOLDER}/tls-ca.pem"


def _fatal(message: str) -> str:
    return ErrorRecord(fatal=True, message=message).model_dump_json()


def test_collect_keeps_intervals_errors_and_summary_and_sets_the_fatal_error_apart() -> None:
    result, fatal = collect([_fatal("cannot connect to 10.0.0.99:9042"), ""])
    assert result is None
    assert fatal is not None
    assert fatal.message == "cannot connect to 10.0.0.99:9042"
    assert collect([]) == (None, None)


def _inventory(tmp_path: Path, clients: bool) -> Path:
    key = tmp_path / "key"
    key.write_text("not read here")
    text = f"hosts:\n  - {{address: 10.0.0.11, user: root, key: {key}}}\n"
    if clients:
        text += f"clients:\n  - {{address: 10.0.0.21, user: root, key: {key}}}\n"
        text += f"  - {{address: 10.0.0.22, user: root, key: {key}}}\n"
    path = tmp_path / "hosts.yaml"
    path.write_text(text)
    return path


def test_client_hosts_set_the_number_of_engines(tmp_path: Path) -> None:
    plan = check_clients(spec(Connection(contact_points=["a"])), 1, _inventory(tmp_path, True))
    assert plan is not None
    assert plan.n == 2
    assert plan.inventory is not None
    assert [h.address for h in plan.inventory.clients] == ["10.0.0.21", "10.0.0.22"]
    assert check_clients(spec(Connection(contact_points=["a"])), 1) is None


def test_an_inventory_without_clients_is_refused_before_anything_starts(tmp_path: Path) -> None:
    path = _inventory(tmp_path, False)
    with pytest.raises(ConfigError, match="has no `clients:`"):
        check_clients(spec(Connection(contact_points=["a"])), 1, path)
    with pytest.raises(ConfigError, match="has no `clients:`"):
        RemoteLauncher(load_inventory(path), tmp_path)


@pytest.mark.parametrize(
    ("clients", "cpus", "message"),
    [
        (2, None, "and --clients 2 cannot be combined"),
        (1, "1", "--engine-cpus 1 places engines on this machine"),
    ],
)
def test_client_hosts_are_not_combined_with_local_placement(
    tmp_path: Path, clients: int, cpus: str | None, message: str
) -> None:
    with pytest.raises(ConfigError, match=message):
        check_clients(
            spec(Connection(contact_points=["a"])), clients, _inventory(tmp_path, True), cpus
        )


def test_more_client_hosts_than_operations_is_refused(tmp_path: Path) -> None:
    small = spec(Connection(contact_points=["a"])).model_copy(update={"stop": Stop(ops=1)})
    refused = r"n=1 operations cannot give each of 2 clients one.*--client-hosts"
    with pytest.raises(WorkloadSyntaxError, match=refused):
        check_clients(small, 1, _inventory(tmp_path, True))


@pytest.mark.parametrize(
    "command",
    [
        ["stress", "write", "n=100", "-node", "127.0.0.1"],
        ["ycsb", "load", "-p", "hosts=127.0.0.1", "-p", "recordcount=100"],
    ],
)
def test_the_cli_refuses_client_hosts_without_clients_before_anything_starts(
    tmp_path: Path, command: list[str]
) -> None:
    work = tmp_path / "never"
    argv = [*command, "--client-hosts", str(_inventory(tmp_path, False)), "--workdir", str(work)]
    done = casslab(tmp_path / "home", *argv, timeout_s=60)
    assert done.returncode != 0
    assert "has no `clients:`" in flat(done.stdout + done.stderr)
    assert not work.exists()
