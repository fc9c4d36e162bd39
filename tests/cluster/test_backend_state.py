"""The backend's record in a cluster's state: one field tagged by the backend
(``backend_state``), read from the slots an earlier casslab wrote (``isolated``,
``external``, ``ssh``), and read by each backend's accessor."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from casslab.cluster import state
from casslab.cluster.backend_state import SLOTS, from_slots
from casslab.cluster.external.external_state import External, external_of
from casslab.cluster.isolated.isolated_state import Isolated, isolated_of, isolated_or_none
from casslab.cluster.model import BackendKind, ClusterState
from casslab.cluster.ssh.ssh_state import SshHosts, ssh_hosts_of, ssh_hosts_or_none
from casslab.errors import ClusterError

DATA = Path(__file__).parent / "data"

# state-<name>.json as an earlier casslab wrote it: the slot that held a record, its type
WRITTEN_BEFORE: list[tuple[str, str | None, type[object] | None]] = [
    ("local", None, None),
    ("isolated", "isolated", Isolated),
    ("ssh", None, None),  # an ssh spec on the isolated cluster's state: no hosts record
    ("ssh-hosts", "ssh", SshHosts),
    ("external", "external", External),
]


def _raw(name: str) -> dict[str, Any]:
    loaded = json.loads((DATA / f"state-{name}.json").read_text())
    assert isinstance(loaded, dict)
    return loaded


@pytest.mark.parametrize(("name", "slot", "record"), WRITTEN_BEFORE)
def test_a_state_with_the_old_slots_reads_into_the_tagged_record_and_writes_the_new_form(
    name: str, slot: str | None, record: type[object] | None
) -> None:
    raw = _raw(name)
    assert set(SLOTS) <= set(raw)  # every state so far has the three slots
    assert "backend_state" not in raw
    read = ClusterState.model_validate_json(json.dumps(raw))
    assert type(read.backend_state) is (record or type(None))
    if read.backend_state is not None:
        assert read.backend_state.backend is read.spec.backend
    written = json.loads(read.model_dump_json())
    assert not set(SLOTS) & set(written)
    assert list(written)[-1] == "backend_state"
    if slot is None:
        assert written["backend_state"] is None
    else:  # the slot's mapping as it was, with its backend's tag
        assert written["backend_state"] == {"backend": read.spec.backend.value, **raw[slot]}
    rest = {k: v for k, v in raw.items() if k not in {*SLOTS, "spec"}}
    assert set(written) == {*rest, "spec", "backend_state"}
    assert {k: written[k] for k in rest} == rest  # as it was (the spec: test_spec_fields.py)
    again = ClusterState.model_validate_json(read.model_dump_json())
    assert again == read
    assert again.model_dump_json() == read.model_dump_json()


def test_a_cluster_directorys_old_state_is_saved_in_the_new_form(tmp_path: Path) -> None:
    folder = tmp_path / "clusters" / "iso"
    folder.mkdir(parents=True)
    (folder / state.STATE_FILE).write_text((DATA / "state-isolated.json").read_text())
    old = state.load("iso", tmp_path / "clusters")
    assert isolated_of(old).cluster_id == "5aef9a"
    state.save(old.model_copy(update={"directory": folder}))
    saved = json.loads((folder / state.STATE_FILE).read_text())
    assert saved["backend_state"]["backend"] == "isolated"
    assert "isolated" not in saved
    assert state.load("iso", tmp_path / "clusters").backend_state == old.backend_state


def test_a_record_of_another_backend_is_refused() -> None:
    local = _raw("local")
    local["isolated"] = _raw("isolated")["isolated"]
    with pytest.raises(ValidationError, match="a record of the isolated backend, in the state of "):
        ClusterState.model_validate(local)
    written = ClusterState.model_validate(_raw("ssh-hosts")).model_dump(mode="json")
    written["spec"] = _raw("external")["spec"]
    with pytest.raises(
        ValidationError, match="ssh backend, in the state of external cluster 'prod'"
    ):
        ClusterState.model_validate(written)


def test_two_slots_holding_records_or_slots_beside_the_new_field_are_refused() -> None:
    both = _raw("isolated")
    both["external"] = _raw("external")["external"]
    with pytest.raises(ValidationError, match="isolated, external: a state keeps one backend's"):
        ClusterState.model_validate(both)
    mixed = _raw("isolated")
    mixed["backend_state"] = mixed["isolated"]
    with pytest.raises(ValidationError, match="backend_state and isolated, external, ssh: a state"):
        ClusterState.model_validate(mixed)


def test_a_state_without_the_slots_is_read_as_given() -> None:
    assert from_slots({"nodes": []}) == {"nodes": []}
    assert from_slots("not a mapping") == "not a mapping"
    assert from_slots({"isolated": None, "external": None, "ssh": None}) == {}


def test_each_backends_accessor_gives_its_record() -> None:
    isolated, hosts, external = (
        ClusterState.model_validate(_raw(name)) for name in ("isolated", "ssh-hosts", "external")
    )
    assert isolated_of(isolated) is isolated.backend_state
    assert isolated_or_none(isolated) is isolated.backend_state
    assert ssh_hosts_of(hosts) is hosts.backend_state
    assert ssh_hosts_or_none(hosts) is hosts.backend_state
    assert external_of(external) is external.backend_state
    assert isolated_or_none(hosts) is None
    assert ssh_hosts_or_none(external) is None


@pytest.mark.parametrize(
    ("accessor", "kind"),
    [(isolated_of, "isolated"), (ssh_hosts_of, "ssh"), (external_of, "external")],
)
def test_an_accessor_refuses_another_backends_state_as_a_callers_mistake(
    accessor: Any, kind: str
) -> None:
    local = ClusterState.model_validate(_raw("local"))
    with pytest.raises(TypeError, match=f"the {kind} backend got a local cluster's state"):
        accessor(local)


@pytest.mark.parametrize(
    ("name", "accessor", "what"),
    [
        ("isolated", isolated_of, "isolation"),
        ("ssh", ssh_hosts_of, "hosts"),
        ("external", external_of, "external"),
    ],
)
def test_an_accessor_names_a_missing_record_of_its_own_cluster(
    name: str, accessor: Any, what: str
) -> None:
    raw = _raw(name)
    raw["isolated"] = raw["external"] = raw["ssh"] = None
    state = ClusterState.model_validate(raw)
    with pytest.raises(ClusterError, match=f"its state has no {what} record"):
        accessor(state)


def test_every_record_is_tagged_with_a_backend_of_its_own() -> None:
    tags = [r.model_fields["backend"].default for r in (Isolated, SshHosts, External)]
    assert sorted(tags) == sorted({BackendKind.ISOLATED, BackendKind.SSH, BackendKind.EXTERNAL})
    assert set(SLOTS.values()) == set(tags)
