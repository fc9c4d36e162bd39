"""Bad input to isolated nodes is a clear error before anything starts."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from casslab.cluster import cluster_spec, parse_spec
from casslab.cluster.isolated import cluster
from casslab.cluster.model import BackendKind
from casslab.errors import ConfigError
from cli_entry import casslab, flat


def test_isolation_or_a_limit_chooses_the_isolated_backend() -> None:
    assert cluster_spec().backend is BackendKind.LOCAL
    assert cluster_spec(isolation="netns").backend is BackendKind.ISOLATED
    assert cluster_spec(cpus=0.5).backend is BackendKind.ISOLATED
    assert cluster_spec(node_size="t2.micro").backend is BackendKind.ISOLATED
    stored = cluster_spec(isolation="netns").model_dump()
    assert parse_spec(stored).backend is BackendKind.ISOLATED


def test_a_public_subnet_is_refused() -> None:
    with pytest.raises(ValidationError, match="private IPv4 subnet"):
        cluster_spec(isolation="netns", subnet="8.8.8.0/24")


def test_no_root_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cluster.os, "geteuid", lambda: 1000)
    with pytest.raises(ConfigError, match=r"need root.*sudo"):
        cluster.preflight(cluster_spec(isolation="netns"))


def test_a_missing_tool_names_its_package(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cluster.os, "geteuid", lambda: 0)
    monkeypatch.setattr(cluster.shutil, "which", lambda tool: None if tool == "nsenter" else tool)
    with pytest.raises(ConfigError, match="apt-get install util-linux"):
        cluster.preflight(cluster_spec(isolation="netns"))


def test_datacenters_without_vde_say_how_to_get_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cluster.os, "geteuid", lambda: 0)
    monkeypatch.setattr(cluster.shutil, "which", lambda tool: None if tool == "dpipe" else tool)
    spec = cluster_spec(topology="dc1:1,dc2:1", heap="512M")
    message = r"links between datacenters need `dpipe`; install it: apt-get install vde2 \("
    with pytest.raises(ConfigError, match=message):
        cluster.preflight(spec)
    cluster.preflight(cluster_spec(topology="dc1:2", heap="512M"))  # one site: no links


def test_limits_beyond_the_host_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cluster.os, "geteuid", lambda: 0)
    monkeypatch.setattr(cluster.os, "sched_getaffinity", lambda _pid: {0, 1})
    with pytest.raises(ConfigError, match=r"4 CPUs but this host has 2.*nothing was started"):
        cluster.preflight(cluster_spec(isolation="netns", node_size="m5.xlarge"))


def test_up_with_an_unknown_size_lists_the_sizes_and_starts_nothing(tmp_path: Path) -> None:
    result = casslab(tmp_path, "up", "--isolation", "netns", "--node-size", "t2.huge")
    assert result.returncode != 0
    message = flat(result.stderr + result.stdout)
    assert "node size 't2.huge' is not known" in message
    assert "t2.small (1 vCPU, 2 GiB)" in message
    assert not (tmp_path / "clusters" / "casslab").exists()


def test_up_with_an_unknown_isolation_names_the_choices(tmp_path: Path) -> None:
    result = casslab(tmp_path, "up", "--isolation", "vm")
    assert result.returncode != 0
    message = flat(result.stderr + result.stdout)
    assert "--isolation" in message
    assert "'process' or 'netns'" in message
