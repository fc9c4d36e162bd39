"""Each backend's variant of a cluster spec, in its folder: the common fields and its own,
tagged by ``backend``; ``ClusterSpec`` is their union, and a spec read from its fields is
its backend's variant, field for field; another backend's field or tag is refused."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from casslab.cluster.cluster_spec import BackendKind, CommonSpec
from casslab.cluster.external.external_spec import ExternalSpec
from casslab.cluster.isolated.isolated_spec import IsolatedSpec
from casslab.cluster.local.local_spec import LocalSpec
from casslab.cluster.model import SPEC_VARIANTS, parse_spec
from casslab.cluster.ssh.ssh_spec import SshSpec

VARIANTS: dict[BackendKind, type[CommonSpec]] = {
    BackendKind.LOCAL: LocalSpec,
    BackendKind.ISOLATED: IsolatedSpec,
    BackendKind.SSH: SshSpec,
    BackendKind.EXTERNAL: ExternalSpec,
}


@pytest.mark.parametrize(
    "given",
    [
        {"name": "lab", "nodes": 3, "heap": "512M", "settings": {"auto_snapshot": False}},
        {"nodes": 2, "clock": ["2=-500ms"], "gc": "zgc"},
        {"cpus": 1.5, "memory": "2GiB", "nodes": 2},
        {"topology": "dc1:2,dc2:1", "links": "dc1-dc2=20ms", "subnet": "10.213.4.0/24"},
        {"hosts": "hosts.yaml", "version": "5.0.8"},
        {"backend": "external", "name": "prod"},
    ],
)
def test_a_spec_reads_into_its_backends_variant_field_for_field(given: dict[str, Any]) -> None:
    spec = parse_spec(given)
    variant = VARIANTS[spec.backend]
    assert type(spec) is variant
    own = spec.model_dump(include=set(variant.model_fields))
    parsed = variant.model_validate(own)
    assert parsed.model_dump() == own
    assert parsed.backend is spec.backend


def test_the_variants_are_their_backends_fields_and_no_others() -> None:
    common = set(CommonSpec.model_fields) | {"backend"}
    own = {kind: set(v.model_fields) - common for kind, v in VARIANTS.items()}
    assert own[BackendKind.LOCAL] == set()
    assert own[BackendKind.EXTERNAL] == set()
    assert own[BackendKind.SSH] == {"hosts"}
    assert {"isolation", "cpus", "memory", "topology", "links", "subnet"} <= own[
        BackendKind.ISOLATED
    ]
    assert dict(SPEC_VARIANTS) == VARIANTS  # the union parse_spec reads into


@pytest.mark.parametrize(
    ("variant", "given", "message"),
    [
        (LocalSpec, {"cpus": 1}, "cpus\n  Extra inputs are not permitted"),
        (LocalSpec, {"backend": "ssh"}, "backend\n  Input should be <BackendKind.LOCAL"),
        (SshSpec, {"hosts": "h.yaml", "topology": "dc1:1"}, "topology\n  Extra inputs"),
        (ExternalSpec, {"hosts": "h.yaml"}, "hosts\n  Extra inputs are not permitted"),
        (
            IsolatedSpec,
            {"nodes": 2, "topology": "dc1:2,dc2:1"},
            "nodes 2: the topology has 3 nodes (dc1:2,dc2:1); leave --nodes out",
        ),
        (IsolatedSpec, {"links": "dc1-dc2=20ms"}, "links join datacenters: give a topology"),
    ],
)
def test_a_variant_refuses_another_backends_fields(
    variant: type[CommonSpec], given: dict[str, Any], message: str
) -> None:
    with pytest.raises(ValidationError) as error:
        variant.model_validate(given)
    assert message in str(error.value)


def test_an_isolated_topology_gives_netns_and_its_node_count() -> None:
    spec = IsolatedSpec.model_validate({"topology": "dc1:2,dc2:1"})
    assert (spec.isolation.value, spec.nodes) == ("netns", 3)
