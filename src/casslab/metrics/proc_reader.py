"""The seam between the agentless samplers and the host they read: a :class:`ProcReader`
reads a set of /proc files (and the usage of some filesystems) in one go, here
(:class:`LocalProcReader`) or on a host reached over SSH
(:class:`casslab.metrics.proc_ssh.SshProcReader`, one command per read).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Protocol

from pydantic import Field

from casslab.metrics.proc_text import FsUsage, parse_boot_time
from casslab.metrics.source import SourceUnavailableError
from casslab.record import Record


class HostFacts(Record):
    """What a reader tells once per host to turn /proc counters into units."""

    clk_tck: int  # clock ticks per second (getconf CLK_TCK)
    page_size: int  # bytes (getconf PAGESIZE)
    boot_time_s: int  # Unix seconds (/proc/stat btime)


class ProcRead(Record):
    """One reading: the text of each file that could be read, by path (a file that could
    not be read, e.g. the /proc/<pid> of an ended process, is absent), and the usage of
    each filesystem asked for, by path (absent when it could not be told)."""

    files: dict[str, str]
    fs: dict[str, FsUsage] = Field(default_factory=dict)


class ProcReader(Protocol):
    """Reads one host's /proc. ``read`` is one round trip; it raises
    :class:`SourceUnavailableError` when the host cannot be reached (never for a file
    that is absent: the caller decides what an absent file means)."""

    @property
    def where(self) -> str:
        """The host, for messages (``this host``, ``root@10.0.0.11:22``)."""
        ...

    def facts(self) -> HostFacts:
        """The host's clock ticks, page size and boot time (read once, then kept)."""
        ...

    def block_device(self, path: str) -> str | None:
        """Kernel name (as in /proc/diskstats) of the block device holding ``path``; None
        when it has none."""
        ...

    def read(
        self, paths: Sequence[str], fs: Sequence[str] = (), *, at: float | None = None
    ) -> ProcRead:
        """The files ``paths`` and the usage of the filesystems holding ``fs``; ``at`` is
        the sampling instant the reading is for (readers shared by several samplers give
        them one reading an instant, :mod:`casslab.metrics.proc_batch`)."""
        ...


def _read_text(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return handle.read()
    except (FileNotFoundError, ProcessLookupError, PermissionError, NotADirectoryError):
        return None


def nearest_existing(path: str) -> str:
    """``path`` or its nearest parent that exists (a data directory not made yet is on
    its parent's filesystem)."""
    while not os.path.exists(path) and os.path.dirname(path) != path:
        path = os.path.dirname(path)
    return path


def _statvfs(path: str) -> FsUsage | None:
    try:
        st = os.statvfs(nearest_existing(path))
    except OSError:
        return None
    return FsUsage(
        blocks=st.f_blocks,
        blocks_free=st.f_bfree,
        blocks_available=st.f_bavail,
        block_size=st.f_frsize,
    )


class LocalProcReader:
    """Reads this machine's /proc: the agentless samplers run here, e.g. to compare them
    with the psutil ones."""

    def __init__(self) -> None:
        self._facts: HostFacts | None = None

    @property
    def where(self) -> str:
        return "this host"

    def facts(self) -> HostFacts:
        if self._facts is None:
            stat = _read_text("/proc/stat")
            if stat is None:
                raise SourceUnavailableError("reading /proc/stat on this host: no such file")
            self._facts = HostFacts(
                clk_tck=os.sysconf("SC_CLK_TCK"),
                page_size=os.sysconf("SC_PAGE_SIZE"),
                boot_time_s=parse_boot_time(stat),
            )
        return self._facts

    def block_device(self, path: str) -> str | None:
        from casslab.metrics.host import block_device_of  # psutil, for this host only

        return block_device_of(nearest_existing(path))

    def read(
        self, paths: Sequence[str], fs: Sequence[str] = (), *, at: float | None = None
    ) -> ProcRead:
        files = {p: text for p in paths if (text := _read_text(p)) is not None}
        usage = {p: u for p in fs if (u := _statvfs(p)) is not None}
        return ProcRead(files=files, fs=usage)
