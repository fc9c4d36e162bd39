"""The external backend without a Cassandra node: contact points and ring rows parsed,
every operation casslab does not own refused with the cluster's name and the reason, the
state file round trip (the password's variable name, never the password), attach's
checks before anything is saved, forgetting a cluster, and its nodes' CQL-only metrics."""

from __future__ import annotations

import socket
import subprocess
from collections import namedtuple
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from cassandra import InvalidRequest

from casslab.cluster import ResetMode, admin, cluster_spec, registry, state
from casslab.cluster.external import attach as attach_module
from casslab.cluster.external.attach import attach_external, external_state
from casslab.cluster.external.cluster import ExternalCluster
from casslab.cluster.external.discovery import (
    Q_LOCAL,
    Q_PEERS,
    Q_PEERS_V2,
    nodes_from_rows,
    parse_contact_points,
    query_ring,
)
from casslab.cluster.external.external_state import DiscoveredNode, External, external_of
from casslab.cluster.model import BackendKind, ClusterState
from casslab.cqlaccess import CqlAccess, cqlsh_options, driver_options
from casslab.errors import ClusterError, ConfigError
from casslab.metrics.sources import build_sources, targets_from_nodes

SECRET = "pa55-external-Secret"
VARIABLE = "CASSLAB_TEST_EXTERNAL_PASSWORD"

Local = namedtuple(
    "Local",
    "rpc_address rpc_port broadcast_address broadcast_port data_center rack host_id "
    "release_version cluster_name",
)
PeerV2 = namedtuple(
    "PeerV2",
    "peer peer_port native_address native_port data_center rack host_id release_version",
)
PeerV1 = namedtuple("PeerV1", "peer rpc_address data_center rack host_id release_version")


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        (["10.0.0.11,10.0.0.12"], [("10.0.0.11", 9042), ("10.0.0.12", 9042)]),
        (["10.0.0.11:9043", "10.0.0.12"], [("10.0.0.11", 9043), ("10.0.0.12", 9042)]),
        (["a.example, a.example ,b.example:19042"], [("a.example", 9042), ("b.example", 19042)]),
        (["[::1]:9142", "[fe80::1]"], [("::1", 9142), ("fe80::1", 9042)]),
    ],
)
def test_contact_points_as_written(given: list[str], expected: list[tuple[str, int]]) -> None:
    assert parse_contact_points(given) == expected


@pytest.mark.parametrize(
    ("given", "fragment"),
    [([""], "at least one"), (["10.0.0.1:x"], "'10.0.0.1:x'"), (["h:70000"], "1-65535")],
)
def test_a_malformed_contact_point_is_named(given: list[str], fragment: str) -> None:
    with pytest.raises(ConfigError, match=fragment):
        parse_contact_points(given)


def _ring_rows() -> tuple[list[Local], list[PeerV2]]:
    local = Local("0.0.0.0", 9042, "10.0.0.12", 7000, "dc1", "r1", "h2", "5.0.9", "Prod")
    peers = [
        PeerV2("10.0.1.5", 7001, "10.0.1.5", 9042, "dc2", "r1", "h3", "5.0.9"),
        PeerV2("10.0.0.11", 7000, "10.0.0.11", 9042, "dc1", "r1", "h1", "5.0.8"),
        PeerV2("10.0.0.12", 7000, "10.0.0.12", 9042, "dc1", "r1", "h2", "5.0.9"),  # itself
    ]
    return [local], peers


def test_the_ring_from_local_and_peers_v2_rows() -> None:
    """The answering node's wildcard rpc_address becomes the address it was reached at;
    nodes are ordered by datacenter, rack and address; a node seen twice counts once."""
    local, peers = _ring_rows()
    nodes = nodes_from_rows(local, peers, ("10.0.0.12", 9042))
    assert [(n.address, n.datacenter, n.host_id, n.release_version) for n in nodes] == [
        ("10.0.0.11", "dc1", "h1", "5.0.8"),
        ("10.0.0.12", "dc1", "h2", "5.0.9"),
        ("10.0.1.5", "dc2", "h3", "5.0.9"),
    ]
    assert nodes[2].storage_port == 7001


def test_without_peers_v2_the_ring_comes_from_system_peers() -> None:
    local, _ = _ring_rows()
    asked: list[str] = []

    def execute(query: str) -> list[Any]:
        asked.append(query)
        if query == Q_LOCAL:
            return local
        if query == Q_PEERS_V2:
            raise InvalidRequest("unconfigured table peers_v2")
        assert query == Q_PEERS
        return [PeerV1("10.0.0.11", "0.0.0.0", "dc1", "r2", "h1", "3.11.17")]

    nodes, name = query_ring(execute, ("10.0.0.12", 9142))
    assert name == "Prod"
    assert asked == [Q_LOCAL, Q_PEERS_V2, Q_PEERS]
    assert [(n.address, n.native_port, n.rack) for n in nodes] == [
        ("10.0.0.12", 9042, "r1"),
        ("10.0.0.11", 9142, "r2"),  # a peers row has no port: the contacted one
    ]


ACCESS = CqlAccess(username="bench", password_env=VARIABLE, local_dc="dc1")
FOUND = [
    DiscoveredNode(address="10.0.0.11", datacenter="dc1", rack="r1", host_id="h1"),
    DiscoveredNode(address="10.0.1.5", datacenter="dc2", rack="r1", host_id="h3"),
]


def _state(root: Path, name: str = "prod-like", access: CqlAccess = ACCESS) -> ClusterState:
    return external_state(
        name,
        root / name,
        FOUND,
        External(contact_points=("10.0.0.11:9042",), access=access),
        version="5.0.9",
        created_at=datetime(2026, 11, 24, tzinfo=UTC),
    )


@pytest.mark.parametrize(
    ("call", "words"),
    [
        (lambda c: c.start(), "start its nodes"),
        (lambda c: c.restart({"concurrent_compactors": 2}), "restart its nodes"),
        (lambda c: c.stop(), "forgets it without touching its nodes"),
        (lambda c: c.wipe(), "wipe its nodes' data"),
        (lambda c: c.nodetool(1, "status"), "kubectl exec"),
        (lambda c: c.capture("data-1", "ks"), "snapshot its data files"),
        (lambda c: c.restore("data-1", "ks"), "load data files"),
        (lambda c: c.reset(ResetMode.DROP), "drop its keyspaces"),
        (lambda c: c.reset(ResetMode.TRUNCATE), "name the workload's own"),
        (lambda c: c.reset(ResetMode.TRUNCATE, []), "name the workload's own"),
    ],
)
def test_what_casslab_does_not_own_is_refused(tmp_path: Path, call: Any, words: str) -> None:
    cluster = ExternalCluster(_state(tmp_path))
    with pytest.raises(ClusterError) as refused:
        call(cluster)
    message = str(refused.value)
    assert "cluster 'prod-like' is external" in message
    assert "not started by casslab" in message
    assert words in message


def test_up_and_create_of_an_external_cluster_are_refused(tmp_path: Path) -> None:
    state.save(_state(tmp_path))
    spec = cluster_spec(name="prod-like")
    with pytest.raises(ClusterError, match="attached already"):
        registry.up(spec, root=tmp_path)
    with pytest.raises(ClusterError, match="attached already"):
        registry.up(spec, root=tmp_path, fresh=True)
    assert (tmp_path / "prod-like" / "state.json").is_file()
    with pytest.raises(ClusterError, match="casslab attach --contact-points"):
        ExternalCluster.create(spec.model_copy(update={"backend": BackendKind.EXTERNAL}))


def test_the_state_keeps_the_variable_name_never_the_password(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(VARIABLE, SECRET)
    state.save(_state(tmp_path))
    text = (tmp_path / "prod-like" / "state.json").read_text()
    assert SECRET not in text
    assert VARIABLE in text
    cluster = registry.attach("prod-like", tmp_path)
    assert isinstance(cluster, ExternalCluster)
    assert cluster.state == _state(tmp_path)
    assert cluster.access == ACCESS
    assert cluster.contact_points == ["10.0.0.11:9042"]
    assert cluster.datacenters == ["dc1", "dc2"]
    assert [n.cql_only for n in cluster.nodes] == [True, True]


def test_the_password_is_read_from_its_variable_at_use(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(VARIABLE, raising=False)
    with pytest.raises(ConfigError, match=f"{VARIABLE}, which is not set"):
        driver_options(ACCESS)
    monkeypatch.setenv(VARIABLE, SECRET)
    provider = driver_options(ACCESS)["auth_provider"]
    assert (provider.username, provider.password) == ("bench", SECRET)
    args, env, credentials = cqlsh_options(ACCESS)
    assert SECRET not in " ".join(args)  # only in the credentials piped to cqlsh
    assert args == ["-u", "bench"]
    assert env == {}
    assert credentials is not None
    assert f"password = {SECRET}" in credentials
    assert SECRET not in ACCESS.describe()


def test_forgetting_touches_only_casslab_s_state(tmp_path: Path) -> None:
    state.save(_state(tmp_path))
    state.set_current("prod-like", tmp_path)
    registry.remove("prod-like", tmp_path)
    assert not (tmp_path / "prod-like").exists()
    assert state.current(tmp_path) is None


def _attach(tmp_path: Path, **options: Any) -> ExternalCluster:
    return attach_external("prod-like", ["10.0.0.11"], root=tmp_path, **({"port": 9042} | options))


@pytest.fixture
def ring(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """attach reads this ring instead of asking nodes; the calls' access is recorded."""
    calls: list[Any] = []

    def read_ring(sessions: Any, points: Any, access: CqlAccess) -> Any:
        calls.append((points, access))
        return list(FOUND), "Prod"

    monkeypatch.setattr(attach_module, "read_ring", read_ring)
    return calls


def test_attach_saves_the_ring_and_makes_it_current(
    tmp_path: Path, ring: list[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(VARIABLE, SECRET)
    cluster = _attach(tmp_path, dc="dc2", user="bench", password_env=VARIABLE)
    assert ring == [([("10.0.0.11", 9042)], ACCESS.model_copy(update={"local_dc": "dc2"}))]
    assert state.current(tmp_path) == "prod-like"
    assert external_of(cluster.state).cluster_name == "Prod"
    assert [(n.number, n.address, n.datacenter) for n in cluster.nodes] == [
        (1, "10.0.0.11", "dc1"),
        (2, "10.0.1.5", "dc2"),
    ]
    assert SECRET not in (tmp_path / "prod-like" / "state.json").read_text()


@pytest.mark.parametrize(
    ("options", "error", "fragment"),
    [
        ({"dc": "dc9"}, ConfigError, "its datacenters are dc1, dc2"),
        ({"user": "bench"}, ConfigError, "give --password-env VAR too"),
        ({"password_env": VARIABLE}, ConfigError, "give --user too"),
        ({"user": "u", "password_env": "NOT-A-NAME"}, ConfigError, "not an environment"),
        ({"user": "u", "password_env": VARIABLE}, ConfigError, "which is not set"),
        ({"tls_ca": Path("/nonexistent/ca.pem")}, ConfigError, "no such file"),
    ],
)
def test_attach_refuses_bad_input_and_saves_nothing(
    tmp_path: Path,
    ring: list[Any],
    monkeypatch: pytest.MonkeyPatch,
    options: dict[str, Any],
    error: type[Exception],
    fragment: str,
) -> None:
    monkeypatch.delenv(VARIABLE, raising=False)
    with pytest.raises(error, match=fragment):
        _attach(tmp_path, **options)
    assert not (tmp_path / "prod-like").exists()
    assert state.current(tmp_path) is None


def test_a_file_that_is_no_ca_is_refused(tmp_path: Path, ring: list[Any]) -> None:
    bogus = tmp_path / "ca.pem"
    bogus.write_text("not a certificate\n")
    with pytest.raises(ConfigError, match="not a readable PEM CA"):
        _attach(tmp_path, tls_ca=bogus)


def test_a_pem_ca_turns_tls_on(tmp_path: Path, ring: list[Any]) -> None:
    ca = tmp_path / "ca.pem"
    key = tmp_path / "ca.key"
    command = ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1"]
    command += ["-subj", "/CN=casslab-test-ca", "-keyout", str(key), "-out", str(ca)]
    made = subprocess.run(
        command,
        capture_output=True,
        check=False,
    )
    if made.returncode != 0:
        pytest.skip(f"openssl could not make a CA: {made.stderr[-200:]!r}")
    cluster = _attach(tmp_path, tls_ca=ca)
    assert cluster.access.tls_ca_file == ca
    assert driver_options(cluster.access)["ssl_context"].verify_mode.name == "CERT_REQUIRED"
    args, env, _ = cqlsh_options(cluster.access)
    assert args == ["--ssl"]
    assert env == {"SSL_CERTFILE": str(ca), "SSL_VALIDATE": "true"}


def test_attach_over_a_cluster_of_casslab_s_own_is_refused(tmp_path: Path, ring: list[Any]) -> None:
    own = _state(tmp_path).model_copy(update={"spec": cluster_spec(name="prod-like")})
    state.save(own)
    with pytest.raises(ClusterError, match="not an external one"):
        _attach(tmp_path)


def test_unreachable_contact_points_are_named_and_nothing_is_saved(tmp_path: Path) -> None:
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(ClusterError) as refused:
        attach_external("gone", ["127.0.0.1"], port=port, root=tmp_path)
    assert f"none of the contact points 127.0.0.1:{port} answered" in str(refused.value)
    assert "nothing was saved" in str(refused.value)
    assert not (tmp_path / "gone").exists()


def test_external_nodes_get_the_cql_sampler_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(VARIABLE, SECRET)
    nodes = _state(Path("/nonexistent")).nodes
    targets = targets_from_nodes(nodes)
    assert [(t.address, t.pid, t.data_dir, t.jmx_port, t.access) for t in targets] == [
        ("10.0.0.11", None, None, None, ACCESS),
        ("10.0.1.5", None, None, None, ACCESS),
    ]
    sources = build_sources(targets)
    assert [(s.name, s.node) for s in sources] == [("cql", "10.0.0.11"), ("cql", "10.0.1.5")]
    for source in sources:
        source.close()


class _Schema:
    """A session over literal schema tables; records every TRUNCATE and DROP."""

    def __init__(self, tables: dict[str, list[str]]) -> None:
        self.tables = tables
        self.changes: list[str] = []

    def execute(self, query: str, parameters: Any = None, timeout: Any = None) -> list[Any]:
        row = namedtuple("row", "keyspace_name table_name")
        if query.startswith("SELECT keyspace_name"):
            return [row(k, None) for k in self.tables]
        if query.startswith("SELECT table_name"):
            return [row(parameters[0], t) for t in self.tables[parameters[0]]]
        self.changes.append(query)
        return []


def test_a_truncate_empties_what_is_named_and_nothing_else() -> None:
    schema = _Schema({"ks1": ["b", "a"], "ks2": ["c", "d"], "system_auth": ["roles"]})
    done = admin.truncate(schema, ["ks1", "ks2.c", "ks9", "ks2.zz", "ks1"])
    assert done == ["ks1", "ks2.c"]  # what does not exist holds nothing to empty
    assert schema.changes == [
        'TRUNCATE "ks1"."a"',
        'TRUNCATE "ks1"."b"',
        'TRUNCATE "ks2"."c"',
    ]


@pytest.mark.parametrize(
    ("mode", "names", "fragment"),
    [
        ("truncate", ["ks1", "system_auth"], "system_auth is a system keyspace"),
        ("truncate", [], "name the keyspaces"),
        ("drop", ["ks1.a"], "a drop takes keyspaces"),
        ("drop", ["system.local"], "system is a system keyspace"),
    ],
)
def test_emptying_refuses_system_keyspaces_and_dropping_tables(
    mode: str, names: list[str], fragment: str
) -> None:
    schema = _Schema({"ks1": ["a"], "system_auth": ["roles"]})
    with pytest.raises(ConfigError, match=fragment):
        admin.empty(schema, mode, names)
    assert schema.changes == []


@pytest.mark.parametrize(
    "fault",
    [
        {"kind": "restart", "target": 1},
        {"kind": "repair", "target": 1},
        {"kind": "flush", "target": 1},
        {"kind": "decommission", "target": 1},
        {"kind": "add-node", "target": 2},
        {"kind": "upgrade", "target": "all", "to": "5.0.9"},
        {"kind": "replace", "target": 1},
    ],
)
def test_every_operation_on_an_attached_cluster_is_refused(
    tmp_path: Path, fault: dict[str, Any]
) -> None:
    """Refused with its backend's reason before anything starts (no CQL, no nodetool)."""
    from casslab.faults import actions
    from casslab.faults.model import Fault

    cluster = ExternalCluster(_state(tmp_path))
    with pytest.raises(ConfigError) as refused:
        actions.check(cluster, Fault.model_validate({"at": 0} | fault))
    assert "cluster 'prod-like' was attached, not started by casslab" in str(refused.value)
