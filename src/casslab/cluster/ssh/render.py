"""Each node's configuration files as text, with the shared rendering the local backend
uses (:mod:`casslab.cluster.node_config`): addresses are the hosts', seeds the first host
of each datacenter (a node that joined later is never one: it keeps the tokens it took and
bootstraps), datacenter and rack from the inventory. Pure."""

from __future__ import annotations

from collections.abc import Sequence

from casslab.cluster import node_config
from casslab.cluster.model import ClusterState, Node
from casslab.cluster.ssh.ssh_state import ssh_hosts_or_none
from casslab.cluster.tokens import tokens_by_datacenter
from casslab.net.topology import Placement, rackdc_properties


def seeds(nodes: list[Node]) -> list[Node]:
    """The first node of each datacenter, in node order."""
    chosen: dict[str | None, Node] = {}
    for node in nodes:
        chosen.setdefault(node.datacenter, node)
    return list(chosen.values())


def node_tokens(state: ClusterState) -> dict[int, Sequence[int]]:
    """Each node's tokens: those recorded (a node that joined, a replacement, every node of
    a cluster that had one replaced), else derived from the count and datacenters of the
    nodes ``casslab up`` made (pure)."""
    num_tokens = int(state.settings.get("num_tokens") or 1)
    hosts = ssh_hosts_or_none(state)
    recorded = {n.number: n.tokens for n in hosts.nodes if n.tokens} if hosts else {}
    derived = [n for n in state.nodes if n.number not in recorded]
    tokens: dict[int, Sequence[int]] = dict(
        zip(
            (n.number for n in derived),
            tokens_by_datacenter([n.datacenter for n in derived], num_tokens),
            strict=True,
        )
    )
    tokens.update(recorded)
    return tokens


def node_files(state: ClusterState) -> dict[int, dict[str, str]]:
    """Node number -> {file name in its conf folder: text}."""
    hosts = ssh_hosts_or_none(state)
    joined = {n.number for n in hosts.nodes if n.joined} if hosts else set()
    tokens = node_tokens(state)
    seed_nodes = seeds([n for n in state.nodes if n.number not in joined])
    files: dict[int, dict[str, str]] = {}
    for node in state.nodes:
        settings = node_config.node_settings(
            state.spec.name, node, seed_nodes, tokens[node.number], state.settings
        )
        if node.number in joined:
            settings["auto_bootstrap"] = True  # it streamed its ranges from the others
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
