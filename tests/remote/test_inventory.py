"""The inventory file: paths resolved against its folder, every mistake named with its entry
and the fix."""

from __future__ import annotations

from pathlib import Path

import pytest

from casslab.errors import ConfigError
from casslab.remote.inventory import load_inventory


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "keys").mkdir()
    (tmp_path / "keys" / "id").write_text("not read here")
    return tmp_path


def _write(folder: Path, text: str) -> Path:
    path = folder / "hosts.yaml"
    path.write_text(text)
    return path


def test_paths_resolve_against_the_file_folder_and_defaults_apply(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(folder))
    path = _write(
        folder,
        """
known_hosts: kh
hosts:
  - {address: 10.0.0.11, user: root, key: keys/id, dc: dc1, rack: r1, base_dir: /srv/c}
  - {address: 10.0.0.12, user: cass, key: ~/keys/id, port: 2222, java_home: /opt/jdk}
clients:
  - {address: 10.0.0.21, user: root, key: keys/id}
""",
    )
    inventory = load_inventory(path)
    assert inventory.path == path
    assert inventory.known_hosts == folder / "kh"
    assert inventory.trust_on_first_use is False
    first, second = inventory.hosts
    assert (first.key, first.dc, first.rack, first.base_dir) == (
        folder / "keys" / "id",
        "dc1",
        "r1",
        "/srv/c",
    )
    assert (second.key, second.port, second.java_home) == (folder / "keys" / "id", 2222, "/opt/jdk")
    assert (second.dc, second.rack, second.base_dir) == ("dc1", "rack1", "/var/lib/casslab")
    assert second.label == "cass@10.0.0.12:2222"
    assert [c.address for c in inventory.clients] == ["10.0.0.21"]


def test_known_hosts_defaults_to_the_users_own(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(folder))
    path = _write(folder, "trust_on_first_use: true\nhosts: [{address: h, user: u, key: keys/id}]")
    inventory = load_inventory(path)
    assert inventory.known_hosts == folder / ".ssh" / "known_hosts"
    assert inventory.trust_on_first_use is True


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("hosts: []", ["hosts: no hosts; list at least one as {address:"]),
        ("clients: []", ["hosts: no hosts"]),
        (
            "hosts: [{address: a, user: u, key: keys/id}, {address: a, user: v, key: keys/id}]",
            ["hosts[1].address: a is already hosts[0]; list each host once"],
        ),
        (
            "hosts: [{address: a, user: u, key: keys/id}]\n"
            "clients: [{address: a, user: u, key: keys/id}]",
            ["clients[0].address: a is already hosts[0]"],
        ),
        (
            "hosts: [{address: a, user: u, key: keys/nope}]",
            ["hosts[0].key: no key file", "keys/nope", "authorized_keys"],
        ),
        (
            "hosts: [{address: a, user: u, key: keys/id, port: 70000}]",
            ["hosts[0].port: must be <= 65535, got 70000"],
        ),
        (
            "hosts: [{address: a, user: u, key: keys/id, port: ssh}]",
            ["hosts[0].port: expected an integer, got 'ssh'"],
        ),
        (
            "hosts: [{address: a, user: u, key: keys/id, pasword: x}]",
            ["hosts[0].pasword: unknown field 'pasword'"],
        ),
        ("host: []", ["host: unknown field 'host'"]),
        ("hosts: [{address: a, key: keys/id}]", ["hosts[0].user: required, but missing"]),
        ("- a\n- b", ["expected a mapping with `hosts:`"]),
    ],
)
def test_mistakes_are_named_with_their_entry_and_fix(
    folder: Path, text: str, expected: list[str]
) -> None:
    path = _write(folder, text)
    with pytest.raises(ConfigError) as caught:
        load_inventory(path)
    message = str(caught.value)
    assert f"inventory {path}" in message
    for part in expected:
        assert part in message


def test_several_mistakes_are_listed_together(folder: Path) -> None:
    path = _write(
        folder,
        "hosts: [{address: a, user: u, key: k1}, {address: a, user: u, key: keys/id}]",
    )
    with pytest.raises(ConfigError, match="2 problems") as caught:
        load_inventory(path)
    assert "hosts[0].key" in str(caught.value)
    assert "hosts[1].address" in str(caught.value)


def test_a_missing_file_and_bad_yaml_are_config_errors(folder: Path) -> None:
    with pytest.raises(ConfigError, match=r"absent\.yaml: No such file"):
        load_inventory(folder / "absent.yaml")
    with pytest.raises(ConfigError, match="YAML syntax"):
        load_inventory(_write(folder, "hosts: [a"))
