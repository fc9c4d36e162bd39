"""Passwords: masked wherever shown or stored, given to the engine through its environment."""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from casslab.engine_contract.workload_spec import Connection
from casslab.errors import ConfigError, WorkloadSyntaxError
from casslab.load import credentials, engine
from casslab.load.credentials import MASK, mask_data, mask_message, mask_text, mask_token
from casslab.load.stress import parse_stress
from casslab.load.ycsb import parse_ycsb

SECRET = "S3cretPa55-casslab"
_LATENCY = dict.fromkeys(("mean_ms", "p50_ms", "p95_ms", "p99_ms", "p999_ms", "max_ms"), 1.0)
_STATS = {
    "count": 1,
    "errors": 0,
    "op_rate": 1.0,
    "response": {"count": 1, **_LATENCY},
    "service": {"count": 1, **_LATENCY},
}
SUMMARY = {
    "schema_version": 1,
    "type": "summary",
    "duration_s": 1.0,
    "total": _STATS,
    "ops": {"write": _STATS},
    "engine_version": "0.1.0",
}
POINTS = ["127.0.150.1:9042"]


@pytest.mark.parametrize(
    ("token", "shown"),
    [
        (f"password={SECRET}", f"password={MASK}"),
        (f"PASSWORD={SECRET}", f"PASSWORD={MASK}"),
        (f"truststore-password={SECRET}", f"truststore-password={MASK}"),
        (f"cassandra.password={SECRET}", f"cassandra.password={MASK}"),
        (f"password={SECRET} with space", f"password={MASK}"),
        (f"user=u password={SECRET} port=1", f"user=u password={MASK} port=1"),
        ("password-env=CASS_PW", "password-env=CASS_PW"),  # a name is no secret
        ("cassandra.password-env=CASS_PW", "cassandra.password-env=CASS_PW"),
        ("key_password=x", "key_password=x"),
        (f"password={MASK}", f"password={MASK}"),
    ],
)
def test_mask_token(token: str, shown: str) -> None:
    assert mask_token(token) == shown


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        (
            f"write n=10 -mode native cql3 user=alice password={SECRET} -rate threads=4",
            f"write n=10 -mode native cql3 user=alice password={MASK} -rate threads=4",
        ),
        (
            f"write -mode 'user=alice password={SECRET}' -rate 'threads>=4'",
            f"write -mode 'user=alice password={MASK}' -rate threads>=4",
        ),
        (
            f"ycsb run -P workloada -p cassandra.username=u -p cassandra.password={SECRET}",
            f"ycsb run -P workloada -p cassandra.username=u -p cassandra.password={MASK}",
        ),
        (
            "mixed 'ratio(write=9,read=1)' duration=60s",
            "mixed 'ratio(write=9,read=1)' duration=60s",
        ),
        (f"write -mode user=u 'password={SECRET}", f"write -mode user=u 'password={MASK}"),
    ],
)
def test_mask_text_keeps_the_command(text: str, shown: str) -> None:
    assert mask_text(text) == shown
    assert mask_text(shown) == shown  # idempotent: the manifest's copy masks the same


def test_mask_message_masks_a_quoted_command() -> None:
    message = f"workload: bad (measured command: 'write -mode user=u password={SECRET}')"
    assert mask_message(message) == (
        f"workload: bad (measured command: 'write -mode user=u password={MASK}')"
    )


def test_mask_data_walks_experiment_documents() -> None:
    data: dict[str, Any] = {
        "name": "x",
        "workload": f"write -mode user=u password={SECRET}",
        "factors": {"workload": [f"read -mode user=u password={SECRET}", "write n=1"]},
        "cluster": {"config": {"client_encryption_options": {"keystore_password": SECRET}}},
        "iterations": 3,
    }
    masked = mask_data(data)
    assert SECRET not in json.dumps(masked)
    assert masked["factors"]["workload"][1] == "write n=1"
    assert masked["iterations"] == 3
    assert masked["cluster"]["config"]["client_encryption_options"]["keystore_password"] == MASK


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"username": "u", "password": "p", "password_env": "P"}, "not both"),
        ({"username": "u", "password_env": "1BAD-NAME"}, "not an environment variable name"),
        ({"username": "u"}, "give both username and password"),
        ({"password_env": "P"}, "give both username and password"),
    ],
)
def test_connection_rules(fields: dict[str, str], message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        Connection(contact_points=POINTS, **fields)


def _stress_spec(line: str) -> Any:
    return parse_stress(line).to_spec(Connection(contact_points=POINTS))


def test_stress_password_env_names_the_variable() -> None:
    spec = _stress_spec("write n=10 -mode native cql3 user=alice password-env=CASS_PW")
    assert (spec.connection.username, spec.connection.password) == ("alice", None)
    assert spec.connection.password_env == "CASS_PW"


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("write -mode user=u password=p password-env=P", "give password= or password-env=, not"),
        ("write -mode user=u password-env=1X", "name an environment variable"),
        ("write -mode password=p", "a password needs user= too"),
    ],
)
def test_stress_credential_errors(line: str, message: str) -> None:
    with pytest.raises(WorkloadSyntaxError, match=message):
        parse_stress(line)


def test_ycsb_password_env() -> None:
    command = parse_ycsb(
        shlex.split(
            "run -p cassandra.username=u -p cassandra.password-env=CASS_PW "
            "-p recordcount=5 -p operationcount=5"
        )
    )
    spec = command.to_spec(Connection(contact_points=POINTS))
    assert (spec.connection.username, spec.connection.password_env) == ("u", "CASS_PW")
    with pytest.raises(WorkloadSyntaxError, match="not both"):
        parse_ycsb(
            shlex.split(
                "run -p cassandra.username=u -p cassandra.password=p "
                "-p cassandra.password-env=CASS_PW"
            )
        )
    with pytest.raises(WorkloadSyntaxError, match=r"needs -p cassandra\.username"):
        parse_ycsb(shlex.split("run -p cassandra.password=p"))


def test_masked_spec_for_display() -> None:
    spec = _stress_spec(f"write n=10 -mode user=alice password={SECRET}")
    shown = credentials.masked(spec).model_dump_json()
    assert SECRET not in shown
    assert f'"password":"{MASK}"' in shown
    assert spec.connection.password == SECRET  # the original is untouched


def test_for_engine_moves_the_password_to_the_environment() -> None:
    spec = _stress_spec(f"write n=10 -mode user=alice password={SECRET}")
    sent, env = credentials.for_engine(spec)
    assert SECRET not in sent.model_dump_json()
    assert sent.connection.password is None
    assert sent.connection.password_env == credentials.ENGINE_PASSWORD_ENV
    assert env == {credentials.ENGINE_PASSWORD_ENV: SECRET}
    Connection.model_validate(sent.connection.model_dump())  # still a valid connection


def test_for_engine_checks_the_users_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    spec = _stress_spec("write n=10 -mode user=alice password-env=CASSLAB_TEST_PW_UNSET")
    monkeypatch.delenv("CASSLAB_TEST_PW_UNSET", raising=False)
    with pytest.raises(ConfigError, match=r"CASSLAB_TEST_PW_UNSET is not set; set it"):
        credentials.for_engine(spec)
    monkeypatch.setenv("CASSLAB_TEST_PW_UNSET", SECRET)
    assert credentials.for_engine(spec) == (spec, {})


def test_engine_gets_the_password_in_its_environment_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The spawned engine sees the password in $CASSLAB_ENGINE_PASSWORD; neither its
    arguments nor spec.json hold it."""
    seen = tmp_path / "seen"
    script = tmp_path / "fake-engine"
    script.write_text(
        "#!/bin/bash\n"
        f'echo "$@" > {seen}.argv\n'
        f'printf %s "$CASSLAB_ENGINE_PASSWORD" > {seen}.env\n'
        f"echo '{json.dumps(SUMMARY)}'\n"
    )
    script.chmod(0o700)
    monkeypatch.setenv(engine.ENGINE_ENV, str(script))
    spec = _stress_spec(f"write n=10 -mode user=alice password={SECRET}")
    engine.run(spec, tmp_path / "work")
    assert Path(f"{seen}.env").read_text() == SECRET
    assert SECRET not in Path(f"{seen}.argv").read_text()
    written = (tmp_path / "work" / engine.SPEC_FILE).read_text()
    assert SECRET not in written
    assert json.loads(written)["connection"]["password_env"] == credentials.ENGINE_PASSWORD_ENV


def _write_spec(*args: str) -> Any:
    return parse_stress(["write", "n=10", *args]).to_spec(Connection(contact_points=POINTS))


def test_a_cluster_s_access_fills_what_the_command_left_out() -> None:
    from casslab.cqlaccess import CqlAccess

    access = CqlAccess(
        username="bench", password_env="PROD_PW", tls_ca_file=Path("/ca.pem"), local_dc="dc2"
    )
    filled = credentials.with_cluster_access(_write_spec(), access).connection
    assert (filled.username, filled.password, filled.password_env) == ("bench", None, "PROD_PW")
    assert (filled.tls, filled.tls_ca_file, filled.local_dc) == (True, "/ca.pem", "dc2")
    own = _write_spec("-mode", "user=alice", "password-env=MINE")
    kept = credentials.with_cluster_access(own, access).connection
    assert (kept.username, kept.password_env) == ("alice", "MINE")  # the command's own wins
    assert credentials.with_cluster_access(own, None) == own
