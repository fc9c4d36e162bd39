"""The network sampler of a node in its own namespace: a fake /sys/class/net, and once a
real namespace joined to the host by a veth pair."""

from __future__ import annotations

import ipaddress
import os
import random
import shutil
import socket
import subprocess
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from casslab.errors import ConfigError
from casslab.metrics.catalogue import names
from casslab.metrics.netns import NetnsSource, node_traffic
from casslab.metrics.source import Sample, SourceUnavailableError

needs_root = pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("ip") is None,
    reason="making network namespaces and veth pairs needs root and iproute2",
)


def _by_metric(samples: list[Sample]) -> dict[str, float]:
    return {s.metric: s.value for s in samples}


def _counters(net: Path, interface: str, rx: int, tx: int) -> None:
    stats = net / interface / "statistics"
    stats.mkdir(parents=True, exist_ok=True)
    (stats / "rx_bytes").write_text(f"{rx}\n")
    (stats / "tx_bytes").write_text(f"{tx}\n")


def test_node_traffic_is_the_host_end_swapped() -> None:
    assert node_traffic(host_rx_bytes=10, host_tx_bytes=99) == (99, 10)


def test_rates_from_the_node_point_of_view(tmp_path: Path) -> None:
    _counters(tmp_path, "vcl-n1", rx=1000, tx=5000)
    src = NetnsSource("127.0.0.1", "vcl-n1", sys_class_net=tmp_path)
    assert src.sample(10.0) == []  # a rate needs two readings
    # the host end received 2000 B (the node sent them) and sent 8000 B (the node got them)
    _counters(tmp_path, "vcl-n1", rx=3000, tx=13000)
    m = _by_metric(src.sample(12.0))
    assert m == {"netns.rx_bytes_per_s": 4000.0, "netns.tx_bytes_per_s": 1000.0}
    assert set(m) <= names()


def test_a_reset_counter_gives_no_rate(tmp_path: Path) -> None:
    _counters(tmp_path, "v1", rx=1000, tx=5000)
    src = NetnsSource("n1", "v1", sys_class_net=tmp_path)
    src.sample(0.0)
    _counters(tmp_path, "v1", rx=10, tx=6000)  # the pair was made anew
    assert _by_metric(src.sample(1.0)) == {"netns.rx_bytes_per_s": 1000.0}


def test_a_vanished_interface_is_a_gap(tmp_path: Path) -> None:
    _counters(tmp_path, "v1", rx=1, tx=1)
    src = NetnsSource("n1", "v1", sys_class_net=tmp_path)
    src.sample(0.0)
    shutil.rmtree(tmp_path / "v1")
    with pytest.raises(SourceUnavailableError, match="interface v1"):
        src.sample(1.0)


@pytest.mark.parametrize("interface", ["nope", "", "../v1", ".."])
def test_a_missing_or_odd_interface_is_a_config_error(tmp_path: Path, interface: str) -> None:
    _counters(tmp_path, "v1", rx=1, tx=1)
    with pytest.raises(ConfigError, match="network interface"):
        NetnsSource("n1", interface, sys_class_net=tmp_path)


def _ip(*args: str) -> str:
    done = subprocess.run(["ip", *args], check=True, capture_output=True, text=True, timeout=10)
    return done.stdout


def _free_subnet() -> ipaddress.IPv4Network | None:
    """A random 10.250.<x>.0/30 that no route of the host overlaps."""
    routed: list[ipaddress.IPv4Network] = []
    for line in _ip("-4", "route", "show").splitlines():
        for word in line.split()[:2]:  # "10.1.0.0/16 dev ...", "blackhole 10.2.0.0/16"
            try:
                routed.append(ipaddress.IPv4Network(word, strict=False))
                break
            except ValueError:  # "default", "blackhole", ...
                continue
    candidates = [ipaddress.IPv4Network(f"10.250.{x}.0/30") for x in range(1, 255)]
    free = [net for net in candidates if not any(net.overlaps(r) for r in routed)]
    return random.choice(free) if free else None


@pytest.fixture
def veth_namespace() -> Iterator[tuple[str, str]]:
    """A namespace ``casslab-t-<random>`` joined to the host by a veth pair in a free
    10.250.<x>.0/30: (host end, address inside the namespace). Deleted afterwards."""
    suffix = uuid.uuid4().hex[:6]
    ns, host_end, peer = f"casslab-t-{suffix}", f"clt{suffix}h", f"clt{suffix}n"
    subnet = _free_subnet()
    if subnet is None:
        pytest.skip("no free 10.250.x.0/30 on this host")
    host_address, node_address = list(subnet.hosts())
    made_ns = False
    try:
        _ip("netns", "add", ns)
        made_ns = True
        _ip("link", "add", host_end, "type", "veth", "peer", "name", peer, "netns", ns)
        _ip("addr", "add", f"{host_address}/30", "dev", host_end)
        _ip("link", "set", host_end, "up")
        _ip("-n", ns, "addr", "add", f"{node_address}/30", "dev", peer)
        _ip("-n", ns, "link", "set", peer, "up")
        yield host_end, str(node_address)
    finally:
        if made_ns:
            subprocess.run(["ip", "netns", "del", ns], capture_output=True, timeout=10)
        if Path(f"/sys/class/net/{host_end}").exists():  # gone with the namespace, normally
            subprocess.run(["ip", "link", "del", host_end], capture_output=True, timeout=10)


@needs_root
def test_real_veth_pair(veth_namespace: tuple[str, str]) -> None:
    """One UDP datagram from the host to the namespace's address (ARP both ways first, an
    ICMP port-unreachable back): the node received and sent something."""
    host_end, address = veth_namespace
    src = NetnsSource("n1", host_end)
    t0 = time.time()
    src.sample(t0)
    sent_before = int(Path(f"/sys/class/net/{host_end}/statistics/tx_bytes").read_text())
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        sock.sendto(b"x" * 1000, (address, 9))
    # the datagram leaves once ARP has resolved the address: on a busy machine that took
    # longer than a fixed half second (525 bytes counted then); wait for it, 10 s at most
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        sent = int(Path(f"/sys/class/net/{host_end}/statistics/tx_bytes").read_text())
        if sent - sent_before >= 1000:
            break
        time.sleep(0.05)
    time.sleep(0.2)  # the ICMP answer
    t1 = time.time()
    m = _by_metric(src.sample(t1))
    assert m["netns.rx_bytes_per_s"] * (t1 - t0) >= 1000  # the datagram, at least
    assert m["netns.tx_bytes_per_s"] > 0  # the ARP reply, at least
    assert set(m) <= names()
