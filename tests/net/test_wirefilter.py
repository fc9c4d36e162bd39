"""One wirefilter: the commands that set a link, showinfo parsed (on output captured from
wirefilter 2.3.2) and compared, and a real wirefilter driven through its management
socket (``dpipe cat = wirefilter -M SOCK = cat``: no network needed)."""

from __future__ import annotations

import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from casslab import pids
from casslab.errors import ClusterError, ConfigError
from casslab.net import wirefilter
from casslab.net.links import Link
from casslab.net.wirefilter import Distribution, WirefilterInfo, WireSettings

PLAIN = Link(sites=("dc1", "dc2"), delay_ms=20)
JITTER = Link(sites=("dc1", "dc2"), delay_ms=20, jitter_ms=5, loss_pct=0.1)
RATE = Link(sites=("dc1", "dc3"), delay_ms=35, rate_bps=100_000_000)

# `showinfo` of a bidirectional wirefilter (in dpipe) after delay 20+5U, loss 0.1,
# bandwidth 12345678, chanbufsize 875000, fifo 0: %g prints 12345678 as 1.23457e+07
BIDIRECTIONAL = (
    "0000 DATA END WITH '.'\nWireFilter: bidirectional\n"
    "Loss   L->R 0.1+0U   R->L 0.1+0U\nLburst L->R 0+0U   R->L 0+0U\n"
    "Delay  L->R 20+5U   R->L 20+5U\nDup    L->R 0+0U   R->L 0+0U\n"
    "Bandw  L->R 1.23457e+07+0U   R->L 1.23457e+07+0U\nSpeed  L->R 0+0U   R->L 0+0U\n"
    "Noise  L->R 0+0U   R->L 0+0U\nMTU    L->R 0     R->L 0   \n"
    "Cap.   L->R 875000+0U   R->L 875000+0U\n"
    "Current Delay Queue size:   L->R 0      R->L 0   \nFifoness FALSE\n"
    "Waiting packets in delay queues 0\n.\n1000 Success\n"
)
# a monodirectional one (stdin and stdout plain pipes) after loss 100, delay 20+5N (its
# waiting packets changed from 0 to 3)
MONODIRECTIONAL = (
    "WireFilter: monodirectional\nLoss   100+0U\nLburst 0+0U\nDelay  20+5N\nDup    0+0U\n"
    "Bandw  0+0U\nSpeed  0+0U\nNoise  0+0U\nMTU    0\nCap.   0+0U\n"
    "Current Delay Queue size:   0\nFifoness TRUE\nWaiting packets in delay queues 3\n"
)


@pytest.mark.parametrize(
    ("link", "partitioned", "expected"),
    [
        (PLAIN, False, ["delay 20", "loss 0", "bandwidth 0", "chanbufsize 0", "fifo 1"]),
        (JITTER, False, ["delay 20+5U", "loss 0.1", "bandwidth 0", "chanbufsize 0", "fifo 0"]),
        # 100 Mbit/s = 12.5 MB/s; queue = 12.5 MB/s x (35 + 50) ms
        (
            RATE,
            False,
            ["delay 35", "loss 0", "bandwidth 12500000", "chanbufsize 1062500", "fifo 1"],
        ),
        (JITTER, True, ["delay 20+5U", "loss 100", "bandwidth 0", "chanbufsize 0", "fifo 0"]),
    ],
)
def test_the_commands_set_every_value_in_plain_units(
    link: Link, partitioned: bool, expected: list[str]
) -> None:
    assert wirefilter.commands(link, partitioned) == expected


def test_the_queue_holds_the_longest_delay_plus_50_ms_at_the_rate() -> None:
    link = Link(sites=("a", "b"), delay_ms=10, jitter_ms=10, rate_bps=8_000_000)  # 1 MB/s
    assert wirefilter.queue_bytes(link) == 1_000_000 * (10 + 10 + 50) // 1000
    assert wirefilter.rate_bytes_per_s(Link(sites=("a", "b"), delay_ms=1, rate_bps=12)) == 2
    assert wirefilter.queue_bytes(PLAIN) == wirefilter.UNLIMITED


def test_showinfo_of_a_bidirectional_wirefilter() -> None:
    info = wirefilter.parse_showinfo(BIDIRECTIONAL)
    one_way = WireSettings(
        delay_ms=20,
        jitter_ms=5,
        jitter_distribution=Distribution.UNIFORM,
        loss_pct=0.1,
        bandwidth_bytes_per_s=12345700,
        chanbufsize_bytes=875000,
    )
    assert info == WirefilterInfo(directions=(one_way, one_way), fifo=False, queued_packets=0)


def test_showinfo_of_a_monodirectional_wirefilter() -> None:
    info = wirefilter.parse_showinfo(MONODIRECTIONAL)
    assert len(info.directions) == 1
    assert info.directions[0].loss_pct == 100
    assert info.directions[0].jitter_distribution is Distribution.NORMAL
    assert (info.fifo, info.queued_packets) == (True, 3)


def test_showinfo_without_its_values_is_an_error() -> None:
    with pytest.raises(ClusterError, match="lacks Delay"):
        wirefilter.parse_showinfo(MONODIRECTIONAL.replace("Delay  20+5N\n", ""))
    with pytest.raises(ClusterError, match="no value like"):
        wirefilter.parse_showinfo(MONODIRECTIONAL.replace("20+5N", "twenty"))


def test_replies_give_the_code_the_status_line_and_the_data() -> None:
    assert wirefilter.parse_reply("1000 Success\n\n") == (1000, "1000 Success", "")
    assert wirefilter.parse_reply("\n1038 Function not implemented\n") == (
        1038,
        "1038 Function not implemented",
        "",
    )
    code, _, data = wirefilter.parse_reply(BIDIRECTIONAL)
    assert code == 1000
    assert data.startswith("WireFilter: bidirectional")
    assert data.endswith("queues 0")
    with pytest.raises(ClusterError, match="no status line"):
        wirefilter.parse_reply("VDE wirefilter V.2.3.2\n")


def test_values_are_compared_as_showinfo_prints_them() -> None:
    info = wirefilter.parse_showinfo(BIDIRECTIONAL)
    asked = JITTER.model_copy(update={"rate_bps": 98765424})  # 12345678 B/s, shown 1.23457e+07
    assert wirefilter.rate_bytes_per_s(asked) == 12345678
    # the cap shown is 875000, not this link's: one mismatch per direction
    assert wirefilter.mismatches(asked, False, info) == [
        f"chanbufsize_bytes L->R is 875000, asked {wirefilter.queue_bytes(asked)}",
        f"chanbufsize_bytes R->L is 875000, asked {wirefilter.queue_bytes(asked)}",
    ]


def test_every_difference_is_named() -> None:
    info = wirefilter.parse_showinfo(MONODIRECTIONAL)  # loss 100, 20+5N, fifo on
    assert wirefilter.mismatches(JITTER, True, info) == [
        "jitter is drawn NORMAL, asked UNIFORM",
        "fifo is 1, asked 0",
    ]
    assert wirefilter.mismatches(PLAIN, False, info) == [
        "jitter_ms is 5, asked 0",
        "loss_pct is 100, asked 0",
    ]


def test_the_pipeline_command_joins_two_taps() -> None:
    argv = wirefilter.pipeline_argv("ta", "tb", Path("/n/l.sock"), "ns1", True, Path("/n/l.rc"))
    assert " ".join(argv) == (
        "chrt -f 10 nsenter --net=/run/netns/ns1 -- dpipe vde_plug tap://ta = "
        "wirefilter -M /n/l.sock -f /n/l.rc = vde_plug tap://tb"
    )
    plain = wirefilter.pipeline_argv("ta", "tb", Path("s"), None, False, None)
    assert " ".join(plain) == "dpipe vde_plug tap://ta = wirefilter -M s = vde_plug tap://tb"


def test_a_socket_path_too_long_for_unix_sockets_is_refused() -> None:
    fits = Path("/" + "d" * 100 + "/a.sock")  # 108 bytes: one too many
    with pytest.raises(ConfigError, match="108 bytes, over the 107"):
        wirefilter.checked_socket_path(fits, "link a-b")
    assert wirefilter.checked_socket_path(Path("/tmp/a.sock"), "x") == Path("/tmp/a.sock")


# --- a real wirefilter ---------------------------------------------------------------

needs_vde = pytest.mark.skipif(
    shutil.which("wirefilter") is None or shutil.which("dpipe") is None,
    reason="needs VDE's wirefilter and dpipe (Debian package vde2)",
)


@pytest.fixture
def running(tmp_path: Path) -> Iterator[Path]:
    """A wirefilter between two `cat`s, its management socket; its group stopped after."""
    sock = tmp_path / "wf.sock"
    argv = ["dpipe", "cat", "=", "wirefilter", "-M", str(sock), "=", "cat"]
    process, started = wirefilter.launch(argv)
    try:
        wirefilter.Control(sock, wait_s=5.0).close()
        yield sock
    finally:
        assert pids.alive(process.pid, started)
        wirefilter.stop_pipeline(process.pid, grace_s=3.0)
        process.wait(timeout=5)
        assert wirefilter.group_members(process.pid) == []
        assert not sock.exists()  # wirefilter removes it on SIGTERM


@needs_vde
def test_apply_sets_a_real_wirefilter_and_reads_it_back(running: Path) -> None:
    info = wirefilter.apply(running, JITTER, partitioned=True)
    assert info.fifo is False
    assert [d.loss_pct for d in info.directions] == [100, 100]  # bidirectional
    info = wirefilter.apply(running, RATE, partitioned=False)
    assert info.directions[0].bandwidth_bytes_per_s == 12_500_000
    assert info.directions[0].chanbufsize_bytes == 1_062_500
    assert (info.directions[0].jitter_ms, info.fifo) == (0, True)
    # and back to no rate: 0 is "unlimited"
    info = wirefilter.apply(running, PLAIN, partitioned=False)
    assert wirefilter.mismatches(PLAIN, False, info) == []
    assert info.directions[1].bandwidth_bytes_per_s == 0


@needs_vde
def test_wirefilter_says_success_to_nonsense_so_the_read_back_catches_it(running: Path) -> None:
    with wirefilter.Control(running) as control:
        assert control.send("delay 30") == ""
        assert control.send("delay abc") == ""  # accepted, and nothing changes
        info = control.showinfo()
        with pytest.raises(ClusterError, match="1038 Function not implemented"):
            control.send("dleay 5")
        with pytest.raises(ClusterError, match="one line"):
            control.send("delay 20\nloss 3")
    assert wirefilter.mismatches(PLAIN, False, info) == [
        "delay_ms L->R is 30, asked 20",
        "delay_ms R->L is 30, asked 20",
    ]


@needs_vde
def test_a_socket_nobody_serves_is_an_error_naming_it(tmp_path: Path) -> None:
    with pytest.raises(ClusterError, match=r"wf\.sock.*tried for 0\.1 s"):
        wirefilter.Control(tmp_path / "wf.sock", wait_s=0.1)


@needs_vde
def test_a_real_pipeline_group_is_stopped_whole() -> None:
    process, started = wirefilter.launch(["dpipe", "true", "=", "cat"])
    process.wait(timeout=5)  # one end gone: the whole pipeline ends
    assert not pids.alive(process.pid, started)
    process, started = wirefilter.launch(["dpipe", "cat", "=", "sleep", "60"])
    try:
        assert pids.alive(process.pid, started)
        deadline = time.monotonic() + 5
        while len(wirefilter.group_members(process.pid)) < 3 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert len(wirefilter.group_members(process.pid)) == 3  # dpipe, cat, sleep
        assert not pids.alive(process.pid, started + 10)  # another start: not ours
    finally:
        wirefilter.stop_pipeline(process.pid, grace_s=3.0)
        process.wait(timeout=5)
    assert wirefilter.group_members(process.pid) == []


def test_realtime_problem_is_empty_or_says_why() -> None:
    problem = wirefilter.realtime_problem()
    assert problem == "" or problem.startswith("chrt -f 10 true")
    if shutil.which("chrt") is not None:
        works = subprocess.run(["chrt", "-f", "10", "true"], check=False).returncode == 0
        assert (problem == "") == works
