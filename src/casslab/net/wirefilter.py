"""One VDE ``wirefilter`` (``docs/design/wan-links.md``): the management commands that set
a :class:`~casslab.net.links.Link` (pure), its ``showinfo`` parsed and compared with what
was asked (pure), a client of its ``-M`` Unix management socket, and the process group of
the pipeline it runs in (its command line pure; started, probed and stopped by PID and
start time, never by name).

wirefilter's management protocol is a line protocol behind the prompt ``VDEwf$ ``: each
command answers ``1000 Success`` or ``1<errno> <text>``; ``showinfo`` prints its values
between ``0000 DATA END WITH '.'`` and a line ``.``. It accepts nonsense without complaint
(``delay abc`` and ``loss 150`` answer ``1000 Success``, commands match by prefix), so the
values are checked here before they are sent and read back with ``showinfo`` after.

wirefilter's units: delay in whole milliseconds (fractions are truncated), loss in
percent, bandwidth and queue cap in bytes (per second); ``0`` means "no limit" for the
last two. Its ``K``/``M``/``G`` suffixes are binary (``10M`` is 83.9 Mbit/s), so numbers
are always sent in full. ``showinfo`` prints values with C's ``%g`` (six significant
digits: 12345678 bytes/s shows as ``1.23457e+07``), so read-backs compare at that
precision.
"""

from __future__ import annotations

import contextlib
import os
import re
import socket
import subprocess
import time
from enum import StrEnum
from pathlib import Path
from types import TracebackType

import psutil

from casslab import procgroup
from casslab.errors import ClusterError, ConfigError
from casslab.net.links import Link
from casslab.record import Record

PROMPT = "VDEwf$ "
SUCCESS = 1000
MAX_COMMAND_BYTES = 127  # wirefilter reads one command with one read() of 128 bytes
QUEUE_HEADROOM_MS = 50  # the rate queue's room beyond the delay line (pitfall: chanbufsize)
UNLIMITED = 0  # bandwidth 0 / chanbufsize 0: no rate limit, no queue cap
PARTITION_LOSS_PCT = 100.0
MAX_SOCKET_PATH_BYTES = 107  # sockaddr_un.sun_path: 108 bytes with the final NUL
RT_PRIORITY = 10  # SCHED_FIFO, low: the kernel's RT throttle still bounds a runaway
NETNS_DIR = Path("/run/netns")
CONNECT_RETRY_S = 0.02
_NUMBER = r"[-+]?(?:\d+(?:\.\d*)?|\.\d+|inf|nan)(?:e[-+]?\d+)?"
_VALUE_RE = re.compile(rf"({_NUMBER})\+({_NUMBER})([UN])", re.IGNORECASE)
_REPLY_RE = re.compile(r"^(\d{4}) (.*)$")
_ROWS = {"Loss": "loss_pct", "Delay": "delay", "Bandw": "bandwidth", "Cap.": "chanbufsize"}


class Distribution(StrEnum):
    """How wirefilter draws a value within ``value±plus``."""

    UNIFORM = "U"
    NORMAL = "N"


class WireSettings(Record):
    """One direction's values as ``showinfo`` prints them."""

    delay_ms: float
    jitter_ms: float
    jitter_distribution: Distribution
    loss_pct: float
    bandwidth_bytes_per_s: float  # 0: unlimited
    chanbufsize_bytes: float  # 0: no cap


class WirefilterInfo(Record):
    """What ``showinfo`` reports: per direction (one for a monodirectional filter, else
    left-to-right then right-to-left), whether packets keep their order, and how many
    wait in the delay line."""

    directions: tuple[WireSettings, ...]
    fifo: bool
    queued_packets: int


def rate_bytes_per_s(link: Link) -> int:
    """The link's rate in the bytes per second wirefilter counts (0: unlimited)."""
    if link.rate_bps is None:
        return UNLIMITED
    return max(1, round(link.rate_bps / 8))


def queue_bytes(link: Link) -> int:
    """The queue cap for a rate-limited link: the delay line (the longest delay, jitter
    included) plus :data:`QUEUE_HEADROOM_MS` of queueing at the rate; 0 without a rate
    (an unbounded queue never fills without a rate)."""
    rate = rate_bytes_per_s(link)
    if rate == UNLIMITED:
        return UNLIMITED
    return max(1, rate * (link.delay_ms + link.jitter_ms + QUEUE_HEADROOM_MS) // 1000)


def _number(value: float) -> str:
    """A number as wirefilter's ``sscanf("%lf")`` reads it, without suffixes."""
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def commands(link: Link, partitioned: bool) -> list[str]:
    """The management commands that give a wirefilter ``link``'s settings (every one of
    them, so they also undo any earlier setting): delay and uniform jitter, loss (100%
    while partitioned), rate and queue cap (0: unlimited), and FIFO order only without
    jitter (FIFO is shared by both directions, so with jitter it would bunch packets
    toward the largest delay; see the design doc, pitfall 3)."""
    delay = f"delay {link.delay_ms}"
    if link.jitter_ms:
        delay += f"+{link.jitter_ms}{Distribution.UNIFORM.value}"
    loss = PARTITION_LOSS_PCT if partitioned else link.loss_pct
    return [
        delay,
        f"loss {_number(loss)}",
        f"bandwidth {rate_bytes_per_s(link)}",
        f"chanbufsize {queue_bytes(link)}",
        f"fifo {0 if link.jitter_ms else 1}",
    ]


def parse_reply(text: str) -> tuple[int, str, str]:
    """One answer (the text before the next prompt) -> (code, wirefilter's status line,
    the data block of ``showinfo``/``help``, or "")."""
    lines = [line for line in text.replace("\r", "").split("\n") if line.strip()]
    for index in range(len(lines) - 1, -1, -1):
        match = _REPLY_RE.match(lines[index])
        if match is not None and match.group(1) != "0000":
            data = lines[:index]
            if data and data[0].startswith("0000 "):
                data = data[1:]
            if data and data[-1] == ".":
                data = data[:-1]
            return int(match.group(1)), lines[index], "\n".join(data)
    raise ClusterError(f"wirefilter answered {text!r}, with no status line like '1000 Success'")


def _values(line: str, label: str) -> list[tuple[float, float, Distribution]]:
    found = [
        (float(m.group(1)), float(m.group(2)), Distribution(m.group(3).upper()))
        for m in _VALUE_RE.finditer(line[len(label) :])
    ]
    if not found:
        raise ClusterError(f"wirefilter's showinfo line {line!r} has no value like 20+0U")
    return found


def parse_showinfo(text: str) -> WirefilterInfo:
    """``showinfo``'s data block (or its whole answer) -> a :class:`WirefilterInfo`.

    A bidirectional filter prints ``Delay  L->R 20+5U   R->L 20+5U``, a monodirectional
    one ``Delay  20+5U``; ``Fifoness TRUE|FALSE``; ``Waiting packets in delay queues N``.
    """
    rows: dict[str, list[tuple[float, float, Distribution]]] = {}
    fifo: bool | None = None
    queued = 0
    for raw in text.splitlines():
        line = raw.strip()
        label = line.split(" ", 1)[0]
        if label in _ROWS:
            rows[_ROWS[label]] = _values(line, label)
        elif label == "Fifoness":
            fifo = line.split()[-1].upper() == "TRUE"
        elif line.startswith("Waiting packets in delay queues"):
            queued = int(line.split()[-1])
    missing = [label for label, key in _ROWS.items() if key not in rows]
    if missing or fifo is None:
        lacking = ", ".join([*missing, *([] if fifo is not None else ["Fifoness"])])
        raise ClusterError(f"wirefilter's showinfo lacks {lacking}: {text!r}")
    counts = {len(values) for values in rows.values()}
    if len(counts) != 1 or counts.pop() not in (1, 2):
        raise ClusterError(f"wirefilter's showinfo has one or two directions per row: {text!r}")
    directions = tuple(
        WireSettings(
            delay_ms=rows["delay"][d][0],
            jitter_ms=rows["delay"][d][1],
            jitter_distribution=rows["delay"][d][2],
            loss_pct=rows["loss_pct"][d][0],
            bandwidth_bytes_per_s=rows["bandwidth"][d][0],
            chanbufsize_bytes=rows["chanbufsize"][d][0],
        )
        for d in range(len(rows["delay"]))
    )
    return WirefilterInfo(directions=directions, fifo=fifo, queued_packets=queued)


def _shown(value: float) -> str:
    """``value`` as showinfo prints it (C's ``%g``)."""
    return f"{value:g}"


def mismatches(link: Link, partitioned: bool, info: WirefilterInfo) -> list[str]:
    """What ``info`` (a read-back) has that differs from ``link`` (partitioned or not),
    one sentence each; empty when the wirefilter is set as asked."""
    wanted = {
        "delay_ms": float(link.delay_ms),
        "jitter_ms": float(link.jitter_ms),
        "loss_pct": PARTITION_LOSS_PCT if partitioned else link.loss_pct,
        "bandwidth_bytes_per_s": float(rate_bytes_per_s(link)),
        "chanbufsize_bytes": float(queue_bytes(link)),
    }
    names = ("L->R", "R->L") if len(info.directions) == 2 else ("",)
    out: list[str] = []
    for name, found in zip(names, info.directions, strict=True):
        where = f" {name}" if name else ""
        for field, value in wanted.items():
            got = getattr(found, field)
            if _shown(got) != _shown(value):
                out.append(f"{field}{where} is {_shown(got)}, asked {_shown(value)}")
        if link.jitter_ms and found.jitter_distribution is not Distribution.UNIFORM:
            out.append(f"jitter{where} is drawn {found.jitter_distribution.name}, asked UNIFORM")
    wanted_fifo = not link.jitter_ms
    if info.fifo != wanted_fifo:
        out.append(f"fifo is {int(info.fifo)}, asked {int(wanted_fifo)}")
    return out


def checked_socket_path(path: Path, what: str) -> Path:
    """``path``, when it fits a Unix socket address (wirefilter would cut a longer one
    silently, and bind where nobody looks)."""
    size = len(os.fsencode(path))
    if size > MAX_SOCKET_PATH_BYTES:
        raise ConfigError(
            f"{what}: its management socket {path} is {size} bytes, over the "
            f"{MAX_SOCKET_PATH_BYTES} of a Unix socket path; use a shorter directory"
        )
    return path


class Control:
    """A session on one wirefilter's management socket (``-M``). wirefilter serves a few
    sessions at once (5 in a dpipe pipeline here) and closes any more at once: hold one
    only as long as needed (a ``with`` block)."""

    def __init__(self, path: Path, timeout_s: float = 2.0, wait_s: float = 0.0) -> None:
        """Connect and read the greeting; ``wait_s``: how long to keep trying while the
        socket is not there or refuses (a pipeline starting up)."""
        self.path = path
        self.timeout_s = timeout_s
        deadline = time.monotonic() + wait_s
        while True:
            self._socket = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            self._socket.settimeout(timeout_s)
            try:
                self._socket.connect(str(path))
                break
            except (FileNotFoundError, ConnectionRefusedError) as error:
                self._socket.close()
                if time.monotonic() >= deadline:
                    raise ClusterError(
                        f"connect to wirefilter's management socket {path}: {error}"
                        + (f" (tried for {wait_s:g} s)" if wait_s else "")
                        + "; is the link's pipeline running (see the link keeper's keeper.log)?"
                    ) from error
                time.sleep(CONNECT_RETRY_S)
            except OSError as error:
                self._socket.close()
                raise ClusterError(
                    f"connect to wirefilter's management socket {path}: {error}"
                ) from error
        try:
            self._read_to_prompt("connect")
        except ClusterError:
            self._socket.close()
            raise

    def _read_to_prompt(self, what: str) -> str:
        deadline = time.monotonic() + self.timeout_s
        data = b""
        suffix = PROMPT.encode()
        while not data.endswith(suffix):
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise ClusterError(
                    f"wirefilter {self.path}: no prompt {PROMPT!r} after {what} within "
                    f"{self.timeout_s:g} s (got {data[-200:]!r})"
                )
            self._socket.settimeout(remaining)
            try:
                chunk = self._socket.recv(4096)
            except TimeoutError:
                continue
            except OSError as error:
                raise ClusterError(f"wirefilter {self.path}: {what}: {error}") from error
            if not chunk:
                raise ClusterError(
                    f"wirefilter {self.path} closed its management session during {what}; "
                    "it serves only a few sessions at once, or its pipeline ended"
                )
            data += chunk
        return data[: -len(suffix)].decode("utf-8", errors="replace")

    def send(self, command: str) -> str:
        """Send one command; its data block (``showinfo``) or ``""``. A reply other than
        ``1000 Success`` raises :class:`ClusterError` with wirefilter's own words."""
        if "\n" in command or "\r" in command or len(command.encode()) > MAX_COMMAND_BYTES:
            raise ClusterError(
                f"wirefilter command {command!r}: one line of at most {MAX_COMMAND_BYTES} "
                "bytes (wirefilter would run only the first line, or a cut one)"
            )
        try:
            self._socket.sendall(command.encode() + b"\n")
        except OSError as error:
            raise ClusterError(f"wirefilter {self.path}: send {command!r}: {error}") from error
        code, status, data = parse_reply(self._read_to_prompt(repr(command)))
        if code != SUCCESS:
            raise ClusterError(f"wirefilter {self.path}: {command!r} answered {status!r}")
        return data

    def showinfo(self) -> WirefilterInfo:
        return parse_showinfo(self.send("showinfo"))

    def close(self) -> None:
        self._socket.close()

    def __enter__(self) -> Control:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()


def apply(
    socket_path: Path, link: Link, partitioned: bool, timeout_s: float = 2.0, wait_s: float = 0.0
) -> WirefilterInfo:
    """Set a running wirefilter to ``link`` (``partitioned``: loss 100%), read the values
    back and return them; :class:`ClusterError` listing what differs if any does.
    ``wait_s``: how long to wait for the socket to answer (see :class:`Control`)."""
    with Control(socket_path, timeout_s, wait_s) as control:
        for command in commands(link, partitioned):
            control.send(command)
        info = control.showinfo()
    wrong = mismatches(link, partitioned, info)
    if wrong:
        raise ClusterError(
            f"wirefilter {socket_path} for link {'-'.join(link.sites)} is not set as asked "
            f"after {'; '.join(commands(link, partitioned))}: {'; '.join(wrong)}"
        )
    return info


def pipeline_argv(
    tap_a: str, tap_b: str, sock: Path, netns: str | None, realtime: bool, rcfile: Path | None
) -> list[str]:
    """``[chrt -f 10] [nsenter --net=/run/netns/NS --] dpipe vde_plug tap://A = wirefilter -M
    SOCK [-f RC] = vde_plug tap://B``: a pipeline joining two persistent taps. Every
    wrapper execs the next, so the process started is the group's leader throughout."""
    command = ["chrt", "-f", str(RT_PRIORITY)] if realtime else []
    if netns is not None:
        command += ["nsenter", f"--net={NETNS_DIR / netns}", "--"]
    rc = ["-f", str(rcfile)] if rcfile is not None else []
    return [
        *[*command, "dpipe", "vde_plug", f"tap://{tap_a}", "="],
        *["wirefilter", "-M", str(sock), *rc, "=", "vde_plug", f"tap://{tap_b}"],
    ]


def realtime_problem() -> str:
    """Why ``chrt -f 10`` fails here (not root, no real-time budget), or ``""``."""
    command = ["chrt", "-f", str(RT_PRIORITY), "true"]
    try:
        result = subprocess.run(command, capture_output=True, text=True, check=False)
    except OSError as error:
        return f"{' '.join(command)}: {error}"
    return f"{' '.join(command)}: {result.stderr.strip()}" if result.returncode else ""


def launch(argv: list[str]) -> tuple[subprocess.Popen[bytes], float]:
    """Start a pipeline as the leader of its own process group, in this session (dpipe's
    ``setpgrp`` fails in a session leader: pitfall 9); its output goes to ours. Returns it
    and its create time."""
    process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, process_group=0)
    try:
        return process, psutil.Process(process.pid).create_time()
    except psutil.NoSuchProcess:  # ended at once: its exit status tells why
        return process, time.time()


def group_members(pgid: int) -> list[int]:
    """The live (not zombie) processes of process group ``pgid``, from /proc."""
    members: list[int] = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError, IndexError, ValueError):
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                if fields[0] != "Z" and int(fields[2]) == pgid:
                    members.append(int(entry.name))
    return members


def stop_pipeline(pgid: int, grace_s: float) -> None:
    """SIGTERM a pipeline's group, SIGKILL after ``grace_s``, until no process of the group
    is left (zombies aside; wirefilter removes its socket on SIGTERM, not on SIGKILL). Only
    for a group known to be ours: its leader checked by :func:`casslab.pids.alive`, or reaped by us
    while the rest of the group still runs (a group's id is not reused while it has one)."""
    procgroup.stop_group(pgid, lambda: bool(group_members(pgid)), grace_s=grace_s)
