"""Each node's configuration files as text, with the shared rendering the local backend
uses (:mod:`casslab.cluster.node_config`): addresses are the hosts', seeds the first host
of each datacenter, datacenter and rack from the inventory. Pure."""

from __future__ import annotations

from casslab.cluster import node_config
from casslab.cluster.model import ClusterState, Node
from casslab.cluster.tokens import tokens_by_datacenter
from casslab.net.topology import Placement, rackdc_properties


def seeds(nodes: list[Node]) -> list[Node]:
    """The first node of each datacenter, in node order."""
    chosen: dict[str | None, Node] = {}
    for node in nodes:
        chosen.setdefault(node.datacenter, node)
    return list(chosen.values())


def node_files(state: ClusterState) -> dict[int, dict[str, str]]:
    """Node number -> {file name in its conf folder: text}."""
    num_tokens = int(state.settings.get("num_tokens") or 1)
    tokens = tokens_by_datacenter([n.datacenter for n in state.nodes], num_tokens)
    seed_nodes = seeds(state.nodes)
    files: dict[int, dict[str, str]] = {}
    for node, node_tokens in zip(state.nodes, tokens, strict=True):
        settings = node_config.node_settings(
            state.spec.name, node, seed_nodes, node_tokens, state.settings
        )
        place = Placement(
            number=node.number, datacenter=node.datacenter or "dc1", rack=node.rack or "rack1"
        )
        files[node.number] = {
            "cassandra.yaml": node_config.cassandra_yaml(settings),
            "cassandra-rackdc.properties": rackdc_properties(place),
            "logback.xml": node_config.logback_xml(),
            "logback-tools.xml": node_config.tools_logback_xml(),
        }
    return files
