"""Which backend a raw spec asks for (``choose_backend``), read before any field is
validated, with the refusals of contradictions word for word as ``casslab up`` prints them;
and the common fields every backend reads (``CommonSpec``)."""

from __future__ import annotations

import re
from typing import Any

import pytest

from casslab.cluster.backend_choice import choose_backend
from casslab.cluster.cluster_spec import BackendKind, CommonSpec
from casslab.cluster.isolated.isolated_spec import with_topology
from casslab.cluster.model import SPEC_VARIANTS, parse_spec


@pytest.mark.parametrize(
    ("given", "kind"),
    [
        ({}, BackendKind.LOCAL),
        ({"backend": "local"}, BackendKind.LOCAL),
        ({"backend": "external"}, BackendKind.EXTERNAL),
        ({"isolation": "process"}, BackendKind.LOCAL),
        ({"cpus": 1}, BackendKind.ISOLATED),
        ({"memory": "1GiB", "backend": "local"}, BackendKind.ISOLATED),
        ({"isolation": "netns"}, BackendKind.ISOLATED),
        ({"topology": "dc1:2,dc2:1"}, BackendKind.ISOLATED),
        ({"cpu_scale": 2.0}, BackendKind.LOCAL),  # a scale of no limit limits nothing
        ({"hosts": "hosts.yaml"}, BackendKind.SSH),
        ({"hosts": "hosts.yaml", "backend": "ssh"}, BackendKind.SSH),
    ],
)
def test_the_fields_choose_the_backend(given: dict[str, Any], kind: BackendKind) -> None:
    assert choose_backend(given) is kind
    assert parse_spec(given).backend is kind


@pytest.mark.parametrize(
    ("given", "message"),
    [
        (
            {"backend": "ssh", "cpus": 2},
            "backend ssh: isolation and node limits need the isolated backend",
        ),
        (
            {"hosts": "h.yaml", "backend": "isolated"},
            "backend isolated: an inventory of hosts needs the ssh backend",
        ),
        (
            {"hosts": "h.yaml", "cpus": 1, "isolation": "netns"},
            "cpus, isolation: not for nodes on hosts of an inventory (each host is a node; "
            "datacenters and racks come from the inventory's dc and rack)",
        ),
        (
            {"hosts": "h.yaml", "topology": "dc1:1,dc2:1"},
            "topology: not for nodes on hosts of an inventory",
        ),
        (
            {"hosts": "h.yaml", "java_home": "/opt/jdk"},
            "java_home /opt/jdk: nodes on hosts of an inventory run the JDK of their host's "
            "java_home in the inventory; give it there",
        ),
        (
            {"topology": "dc1:1", "isolation": "process"},
            "isolation process: datacenters and links need nodes in network namespaces; "
            "use --isolation netns (the default with --topology)",
        ),
        ({"backend": "docker"}, "backend 'docker': give one of local, isolated, external, ssh"),
    ],
)
def test_contradictions_are_refused_naming_the_fields(given: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match="^" + re.escape(message)):
        choose_backend(given)
    with pytest.raises(ValueError, match=re.escape(message)):
        parse_spec(given)


def test_a_topology_gives_netns_and_its_node_count_unless_nodes_are_given() -> None:
    assert with_topology({"topology": "dc1:2,dc2:1"}) == {
        "topology": "dc1:2,dc2:1",
        "isolation": "netns",
        "nodes": 3,
    }
    assert with_topology({"topology": "dc1:2", "nodes": 5})["nodes"] == 5
    assert with_topology({"nodes": 2}) == {"nodes": 2}


def test_the_common_fields_are_every_specs_and_no_backends_own() -> None:
    common = set(CommonSpec.model_fields)
    assert all(common <= set(v.model_fields) for v in SPEC_VARIANTS.values())
    assert not common & {"isolation", "cpus", "topology", "links", "hosts"}
    spec = CommonSpec.model_validate({"clock": ["2=-500ms"], "heap": "1G"})
    assert spec.clock == {2: -500.0}
    assert spec.injectable_clock
    assert spec.address(3) == "127.0.0.3"
