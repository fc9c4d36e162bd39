"""Each backend owns its spec fields: the isolation and limits are written once (the
isolated backend's ``NodeIsolation``), and every place that speaks of them takes them from
there; a state.json written before keeps reading."""

from __future__ import annotations

import json

import pytest

from casslab.cluster import ISOLATION_FIELDS, ClusterSpec, NodeIsolation
from casslab.experiment.design.plan_records import RestartReason
from casslab.experiment.file.experiment_model import ClusterSection


def test_the_isolation_fields_are_the_isolated_backends_own() -> None:
    assert tuple(NodeIsolation.model_fields) == ISOLATION_FIELDS
    assert set(ISOLATION_FIELDS) <= set(ClusterSpec.model_fields)
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
    assert ClusterSpec.model_validate(given).backend.value == backend


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
    spec = ClusterSpec.model_validate_json(json.dumps(stored))
    dumped = json.loads(spec.model_dump_json())
    assert dumped == {
        **stored,
        "injectable_clock": False,
        "gc": None,
        "preset": None,
        "jvm_options": [],
        "node_versions": {},
        "java_home": None,
    }
