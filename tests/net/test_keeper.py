"""The link keeper: its pure decisions and files, then real links (root): two namespaces
joined at layer 2 through one wirefilter pipeline that the keeper runs, changes,
restarts and stops.

The real topology, all in namespaces this module makes and removes (``casslab-tkeep-<pid>``)::

    ns -a: eth0 10.250.77.11/24 ═veth═ va ─ br0 ─ ta (tap, isolated) ┐
                                                    wirefilter pipeline (in ns casslab-tkeep-<pid>)
    ns -b: eth0 10.250.77.12/24 ═veth═ vb ─ br1 ─ tb (tap, isolated) ┘
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import psutil
import pytest
from pydantic import ValidationError

from casslab import pids
from casslab.errors import ClusterError, ConfigError
from casslab.net import keeper, wirefilter
from casslab.net.keeper import Action, KeeperPlan, LinkPlan
from casslab.net.links import Link

LINK = Link(sites=("dc1", "dc2"), delay_ms=20)
PLAN = KeeperPlan(links=(LinkPlan(link=LINK, tap_a="ta", tap_b="tb"),))
HAS_VDE = all(shutil.which(tool) for tool in ("wirefilter", "dpipe", "vde_plug", "nsenter"))
needs_vde = pytest.mark.skipif(not HAS_VDE, reason="needs VDE (Debian vde2) and nsenter")
root_only = pytest.mark.skipif(os.geteuid() != 0, reason="network namespaces and taps need root")


@pytest.mark.parametrize(
    ("running", "applied", "now", "expected"),
    [
        (None, False, 10.0, Action.LAUNCH),  # not started, or its restart is due
        (None, False, 4.0, Action.WAIT),  # its restart waits until 5.0
        (False, True, 10.0, Action.RESTART),  # it ended
        (True, False, 10.0, Action.APPLY),  # runs without links.json's settings
        (True, True, 10.0, Action.NOTHING),
    ],
)
def test_what_the_keeper_does_next(
    running: bool | None, applied: bool, now: float, expected: Action
) -> None:
    assert keeper.decide(running=running, applied=applied, now=now, not_before=5.0) is expected


def test_a_link_that_keeps_dying_is_restarted_ever_more_slowly() -> None:
    delays = [keeper.restart_delay_s(n) for n in range(1, 8)]
    assert delays == [0.0, 0.5, 1.0, 2.0, 4.0, 5.0, 5.0]


def test_the_pipeline_command_of_a_link() -> None:
    plan = PLAN.links[0]
    assert plan.name == "dc1-dc2"
    command = keeper.pipeline_command(plan, Path("/n/dc1-dc2.sock"), None, realtime=True)
    assert " ".join(command) == (
        "chrt -f 10 dpipe vde_plug tap://ta = wirefilter -M /n/dc1-dc2.sock = vde_plug tap://tb"
    )


def test_the_plan_is_written_atomically_and_read_back(tmp_path: Path) -> None:
    keeper.write_plan(tmp_path, PLAN)
    assert keeper.read_plan(tmp_path) == PLAN
    assert sorted(p.name for p in tmp_path.iterdir()) == ["links.json"]


def test_a_plan_names_each_link_once_and_fits_its_sockets(tmp_path: Path) -> None:
    with pytest.raises(ValidationError, match="dc1-dc2 given more than once"):
        KeeperPlan(links=(PLAN.links[0], PLAN.links[0]))
    deep = tmp_path / ("d" * 110)
    with pytest.raises(ConfigError, match=r"link dc1-dc2: its management socket .* use a short"):
        keeper.write_plan(deep, PLAN)
    assert not deep.exists()


def test_an_unknown_link_or_other_sites_are_refused(tmp_path: Path) -> None:
    keeper.write_plan(tmp_path, PLAN)
    with pytest.raises(ClusterError, match=r"no link 'dc1-dc3' .* its links are dc1-dc2"):
        keeper.set_link(tmp_path, "dc1-dc3", partitioned=True)
    other = Link(sites=("dc1", "dc3"), delay_ms=5)
    with pytest.raises(ClusterError, match="new settings are for dc1-dc3"):
        keeper.set_link(tmp_path, "dc1-dc2", link=other)
    assert keeper.read_plan(tmp_path) == PLAN  # unchanged


def test_health_and_stop_with_nothing_running(tmp_path: Path) -> None:
    keeper.write_plan(tmp_path, PLAN)
    [health] = keeper.health(tmp_path)
    assert (health.name, health.alive, health.kept, health.restarts) == ("dc1-dc2", False, False, 0)
    keeper.stop(tmp_path, None, None)
    keeper.stop(tmp_path / "gone", 12345678, 1.0)


@needs_vde
def test_a_keeper_whose_links_never_come_up_fails_and_leaves_nothing(tmp_path: Path) -> None:
    missing = f"casslab-tkeep-{os.getpid()}-missing"  # no such namespace: nsenter fails
    keeper.write_plan(tmp_path, PLAN.model_copy(update={"netns": missing}))
    with pytest.raises(ClusterError, match=r"dc1-dc2 not up .* within 2 s.*keeper.log ends with"):
        keeper.start(tmp_path, timeout_s=2.0)
    log = (tmp_path / "keeper.log").read_text()
    assert missing in log
    assert "restarting" in log
    processes = psutil.process_iter(["cmdline"])
    left = [p.pid for p in processes if missing in " ".join(p.info["cmdline"] or [])]
    assert left == []  # (a test may look by name; casslab never does)
    assert not list(tmp_path.glob("*.sock"))


# --- real links ----------------------------------------------------------------------

_ECHO = """
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind((sys.argv[1], 7777))
print("ready", flush=True)
while True:
    data, peer = s.recvfrom(64)
    s.sendto(data, peer)
"""
_PROBE = """
import json, socket, sys, time
host, count, timeout = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(timeout)
out = []
for n in range(count):
    payload, sent, rtt = str(n).encode(), time.perf_counter(), None
    s.sendto(payload, (host, 7777))
    try:
        while rtt is None:
            if s.recvfrom(64)[0] == payload:
                rtt = (time.perf_counter() - sent) * 1000
    except TimeoutError:
        pass
    out.append(rtt)
print(json.dumps(out))
"""


@dataclass(frozen=True)
class Fabric:
    netns: str  # where the bridges, taps and pipeline are
    client: str  # namespace of 10.250.77.11
    server: str  # 10.250.77.12, which echoes UDP on port 7777


def _ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True, text=True)


@pytest.fixture(scope="module")
def fabric() -> Iterator[Fabric]:
    base = f"casslab-tkeep-{os.getpid()}"
    net = Fabric(netns=base, client=f"{base}-a", server=f"{base}-b")
    echo = None
    try:
        for ns in (net.netns, net.client, net.server):
            _ip("netns", "add", ns)
            _ip("-n", ns, "link", "set", "lo", "up")
            subprocess.run(
                ["ip", "netns", "exec", ns, "sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1"],
                check=True,
            )
        for bridge, tap, host_end, ns, address in (
            ("br0", "ta", "va", net.client, "10.250.77.11/24"),
            ("br1", "tb", "vb", net.server, "10.250.77.12/24"),
        ):
            _ip("-n", net.netns, "link", "add", bridge, "type", "bridge")
            _ip("-n", net.netns, "link", "set", bridge, "up")
            _ip("-n", net.netns, "tuntap", "add", "mode", "tap", "name", tap)
            _ip("-n", net.netns, "link", "set", tap, "master", bridge, "up")
            isolate = ["bridge", "link", "set", "dev", tap, "isolated", "on"]
            subprocess.run(["ip", "netns", "exec", net.netns, *isolate], check=True)
            _ip("-n", net.netns, "link", "add", host_end, "type", "veth", "peer", "name", "eth0")
            _ip("-n", net.netns, "link", "set", "eth0", "netns", ns)
            _ip("-n", net.netns, "link", "set", host_end, "master", bridge, "up")
            _ip("-n", ns, "addr", "add", address, "dev", "eth0")
            _ip("-n", ns, "link", "set", "eth0", "up")
        echo = subprocess.Popen(
            ["ip", "netns", "exec", net.server, sys.executable, "-c", _ECHO, "10.250.77.12"],
            stdout=subprocess.PIPE,
        )
        assert echo.stdout is not None
        assert echo.stdout.readline().strip() == b"ready"
        yield net
    finally:
        if echo is not None:
            echo.kill()
            echo.wait()
        for ns in (net.netns, net.client, net.server):
            subprocess.run(["ip", "netns", "del", ns], check=False, capture_output=True)


def _probe(net: Fabric, count: int, timeout_s: float) -> list[float | None]:
    command = ["ip", "netns", "exec", net.client, "chrt", "-f", "10", sys.executable]
    result = subprocess.run(
        [*command, "-c", _PROBE, "10.250.77.12", str(count), str(timeout_s)],
        check=True,
        capture_output=True,
        text=True,
    )
    rtts: list[float | None] = json.loads(result.stdout)
    return rtts


def _rtt_ms(net: Fabric) -> float:
    """The median RTT of 5 UDP echoes, after one that may wait for ARP."""
    rtts = _probe(net, 6, 1.0)[1:]
    answered = [r for r in rtts if r is not None]
    assert len(answered) >= 4, rtts
    return statistics.median(answered)


def _wait(condition: Callable[[], bool], what: str, timeout_s: float = 10.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, f"{what}: not within {timeout_s} s"
        time.sleep(0.05)


@dataclass(frozen=True)
class Kept:
    net: Fabric
    net_dir: Path
    pid: int
    started: float


@pytest.fixture
def kept(fabric: Fabric, tmp_path: Path) -> Iterator[Kept]:
    """A keeper running the 20 ms link dc1-dc2 between the fabric's taps."""
    net_dir = tmp_path / "net"
    net_dir.mkdir()
    keeper.write_plan(net_dir, PLAN.model_copy(update={"netns": fabric.netns}))
    pid, started = keeper.start(net_dir)
    try:
        yield Kept(fabric, net_dir, pid, started)
    finally:
        keeper.stop(net_dir, pid, started)


@root_only
@needs_vde
def test_a_link_delays_and_changes_at_run_time(kept: Kept) -> None:
    assert 38 <= _rtt_ms(kept.net) <= 55  # 2 x 20 ms
    began = time.monotonic()
    plan = keeper.set_link(kept.net_dir, "dc1-dc2", link=LINK.model_copy(update={"delay_ms": 50}))
    assert time.monotonic() - began < 1.0  # a few ms on an idle host
    assert plan.link.delay_ms == 50
    assert 98 <= _rtt_ms(kept.net) <= 115
    [health] = keeper.health(kept.net_dir)
    assert (health.alive, health.kept, health.applied, health.restarts) == (True, True, True, 0)
    assert health.link.delay_ms == 50


@root_only
@needs_vde
def test_a_partition_cuts_the_link_and_healing_restores_it(kept: Kept) -> None:
    keeper.set_link(kept.net_dir, "dc1-dc2", partitioned=True)
    assert _probe(kept.net, 3, 0.3) == [None, None, None]
    assert keeper.health(kept.net_dir)[0].partitioned
    keeper.set_link(kept.net_dir, "dc1-dc2", partitioned=False)
    assert 38 <= _rtt_ms(kept.net) <= 55


@root_only
@needs_vde
def test_a_killed_pipeline_is_restarted_with_its_current_settings(kept: Kept) -> None:
    keeper.set_link(kept.net_dir, "dc1-dc2", link=LINK.model_copy(update={"delay_ms": 30}))
    [old] = keeper.pipelines(kept.net_dir)
    os.killpg(old.pgid, signal.SIGKILL)  # the whole link dies: a silent partition
    _wait(lambda: keeper.health(kept.net_dir)[0].restarts == 1, "a restart")
    _wait(lambda: keeper.health(kept.net_dir)[0].applied, "the settings applied again")
    [health] = keeper.health(kept.net_dir)
    assert health.alive
    assert health.last_restart is not None
    assert time.time() - health.last_restart < 10
    [new] = keeper.pipelines(kept.net_dir)
    assert new.pgid != old.pgid
    assert 58 <= _rtt_ms(kept.net) <= 75  # 2 x 30 ms, from links.json
    assert "restart 1" in (kept.net_dir / "keeper.log").read_text()


@root_only
@needs_vde
def test_stop_leaves_no_process_and_no_socket(kept: Kept) -> None:
    [record] = keeper.pipelines(kept.net_dir)
    assert (kept.net_dir / "dc1-dc2.sock").exists()
    keeper.stop(kept.net_dir, kept.pid, kept.started)
    assert not pids.alive(kept.pid, kept.started)
    assert wirefilter.group_members(record.pgid) == []
    assert not list(kept.net_dir.glob("*.sock"))
    assert "dc1-dc2: stopped" in (kept.net_dir / "keeper.log").read_text()
    keeper.stop(kept.net_dir, kept.pid, kept.started)  # again: nothing to do


@root_only
@needs_vde
def test_stop_after_the_keeper_was_killed_stops_its_pipelines(kept: Kept) -> None:
    [record] = keeper.pipelines(kept.net_dir)
    os.kill(kept.pid, signal.SIGKILL)
    os.waitpid(kept.pid, 0)
    assert pids.alive(record.pgid, record.started)  # the link outlives its keeper
    assert not keeper.health(kept.net_dir)[0].kept
    keeper.stop(kept.net_dir, kept.pid, kept.started)
    assert wirefilter.group_members(record.pgid) == []
    assert not list(kept.net_dir.glob("*.sock"))


@root_only
@needs_vde
def test_the_keeper_stops_its_links_when_its_directory_is_removed(kept: Kept) -> None:
    [record] = keeper.pipelines(kept.net_dir)
    shutil.rmtree(kept.net_dir)
    _wait(lambda: not pids.alive(kept.pid, kept.started), "the keeper's exit")
    assert wirefilter.group_members(record.pgid) == []
