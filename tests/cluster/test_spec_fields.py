"""Each backend owns its spec fields: the isolation and limits are written once (the
isolated backend's ``NodeIsolation``), and every place that speaks of them takes them from
there; a state.json written before keeps reading."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from casslab.cluster import ISOLATION_FIELDS, ClusterState, IsolatedSpec, NodeIsolation, parse_spec
from casslab.cluster.external.external_spec import ExternalSpec
from casslab.cluster.local.local_spec import LocalSpec
from casslab.cluster.ssh.ssh_spec import SshSpec
from casslab.experiment.design.plan_records import RestartReason
from casslab.experiment.file.experiment_model import ClusterSection


def test_the_isolation_fields_are_the_isolated_backends_own() -> None:
    assert tuple(NodeIsolation.model_fields) == ISOLATION_FIELDS
    assert set(ISOLATION_FIELDS) <= set(IsolatedSpec.model_fields)
    assert set(ISOLATION_FIELDS) <= set(ClusterSection.model_fields)
    assert {reason.value for reason in RestartReason} >= set(ISOLATION_FIELDS)


@pytest.mark.parametrize(
    ("given", "backend"),
    [
        ({}, "local"),
        ({"cpus": 1}, "isolated"),
        ({"isolation": "netns"}, "isolated"),
        ({"hosts": "hosts.yaml"}, "ssh"),
    ],
)
def test_a_backends_own_field_chooses_it(given: dict[str, object], backend: str) -> None:
    assert parse_spec(given).backend.value == backend


def test_a_spec_as_state_json_kept_it_reads_back_equal() -> None:
    """The spec as state.json held it before the fields moved into the backends' folders
    (and before ``injectable_clock``, ``gc``, ``preset``, ``jvm_options`` and
    ``node_versions`` and ``java_home``, which read as their defaults)."""
    stored = {
        "name": "lab",
        "backend": "isolated",
        "nodes": 2,
        "version": None,
        "heap": "512M",
        "base_address": "127.0.0.1",
        "jmx_port_base": 7190,
        "native_port": 9042,
        "storage_port": 7000,
        "settings": {},
        "isolation": "netns",
        "node_size": "t2.small",
        "cpus": None,
        "memory": None,
        "cpu_scale": 1.0,
        "cpuset": None,
        "io_read": None,
        "io_write": None,
        "subnet": None,
        "topology": None,
        "links": [],
        "clock": {},
        "hosts": None,
    }
    spec = parse_spec(json.loads(json.dumps(stored)))
    assert isinstance(spec, IsolatedSpec)
    dumped = json.loads(spec.model_dump_json())
    assert dumped == {
        **{k: v for k, v in stored.items() if k != "hosts"},  # the ssh backend's, at default
        "injectable_clock": False,
        "gc": None,
        "preset": None,
        "jvm_options": [],
        "node_versions": {},
        "java_home": None,
    }


DATA = Path(__file__).parent / "data"


@pytest.mark.parametrize(
    ("backend", "variant"),
    [
        ("local", LocalSpec),
        ("isolated", IsolatedSpec),
        ("ssh", SshSpec),
        ("external", ExternalSpec),
    ],
)
def test_a_state_json_of_every_backends_fields_reads_into_its_variant(
    backend: str, variant: type[object]
) -> None:
    """state-<backend>.json: as casslab wrote a cluster's state while its spec was one class
    of every backend's fields (the isolated one is a real cluster's, the others the same
    state with another backend's spec), each holding the other backends' fields at their
    defaults. They read into the backend's variant; what is written now holds its own
    fields only (schema 1 still: an older casslab reads the missing ones as defaults)."""
    text = (DATA / f"state-{backend}.json").read_text()
    raw = json.loads(text)
    assert {"hosts", "isolation", "topology", "links"} <= set(raw["spec"])
    state = ClusterState.model_validate_json(text)
    assert isinstance(state.spec, variant)
    assert state.schema_version == 1
    written = json.loads(state.model_dump_json())
    assert set(written["spec"]) == set(type(state.spec).model_fields)
    kept = {k: v for k, v in raw["spec"].items() if k in written["spec"]}
    assert written["spec"] == kept  # the variant's fields, as they were
    assert ClusterState.model_validate_json(state.model_dump_json()) == state


@pytest.mark.parametrize(
    ("backend", "field", "value", "message"),
    [
        ("external", "subnet", "10.1.2.0/24", "backend external: isolation and node limits"),
        ("local", "links", ["dc1-dc2=20ms"], "links join datacenters: give a topology too"),
        ("external", "hosts", "h.yaml", "backend external: an inventory of hosts needs the ssh"),
        ("ssh", "subnet", "10.1.2.0/24", "subnet '10.1.2.0/24': a field of isolated clusters, "),
        ("ssh", "links", ["dc1-dc2=20ms"], "not of this ssh cluster; leave it out"),
    ],
)
def test_another_backends_field_given_a_value_is_refused(
    backend: str, field: str, value: object, message: str
) -> None:
    raw = json.loads((DATA / f"state-{backend}.json").read_text())
    raw["spec"][field] = value
    with pytest.raises(ValidationError, match=message.replace("[", r"\[").replace("]", r"\]")):
        ClusterState.model_validate(raw)
    with pytest.raises(ValidationError, match=message.replace("[", r"\[").replace("]", r"\]")):
        parse_spec(raw["spec"])


def test_a_scale_without_limits_is_left_out() -> None:
    spec = parse_spec({"cpu_scale": 2.0, "nodes": 2})
    assert isinstance(spec, LocalSpec)
    assert spec.nodes == 2
