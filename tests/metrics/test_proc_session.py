"""The long-lived session reader: its script run by ``sh`` here through pipes (over SSH
the channel carries the same bytes; tests/metrics/test_remote_ssh_lab.py runs it there)."""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from pathlib import Path

import psutil
import pytest

from casslab.errors import ConfigError
from casslab.metrics.proc_reader import LocalProcReader
from casslab.metrics.proc_session import (
    SESSION_ARGV,
    PipeSession,
    Session,
    SessionProcReader,
    request,
)
from casslab.metrics.proc_text import header
from casslab.metrics.source import SourceUnavailableError


class Opened:
    """Opens pipe sessions and remembers them, to close them after the test."""

    def __init__(self) -> None:
        self.sessions: list[PipeSession] = []

    def __call__(self, argv: Sequence[str]) -> Session:
        session = PipeSession(argv)
        self.sessions.append(session)
        return session


@pytest.fixture
def opened() -> Iterator[Opened]:
    made = Opened()
    try:
        yield made
    finally:
        for s in made.sessions:
            s.close()


def test_request_lines() -> None:
    assert (
        request("t-7", ["/proc/stat", "/a b"], ["/data"]) == b"t-7 1 2\n/data\n/proc/stat\n/a b\n"
    )
    with pytest.raises(ConfigError, match="without a newline"):
        request("t-1", ["/a\nb"], [])


def test_one_shell_answers_every_reading_as_the_files_read_here(
    tmp_path: Path, opened: Opened
) -> None:
    a = tmp_path / "a"
    a.write_text(f"one\n{header('casslab-end:1')}\n")  # like an end line; not this session's
    missing = str(tmp_path / "missing")
    reader = SessionProcReader(opened, LocalProcReader())
    paths = [str(a), missing, "/proc/self/stat", "/proc/uptime"]
    first = reader.read(paths, fs=[str(tmp_path), missing + "/not yet made"])
    second = reader.read([str(a)], fs=[])
    assert reader.sessions_opened == 1
    assert first.files.keys() == {str(a), "/proc/self/stat", "/proc/uptime"}
    assert first.files[str(a)] == second.files[str(a)] == a.read_text()
    assert first.fs.keys() == {str(tmp_path), missing + "/not yet made"}  # its parent's
    assert first.fs[str(tmp_path)].block_size == os.statvfs(tmp_path).f_frsize
    # /proc/self is the shell's tail: the session's own process read it
    shell = psutil.Process(opened.sessions[0].pid)
    assert int(first.files["/proc/self/stat"].split()[3]) == shell.pid  # tail's parent
    reader.close()
    assert not shell.is_running() or shell.status() == psutil.STATUS_ZOMBIE


def test_an_ended_session_is_a_gap_and_the_next_reading_opens_another(opened: Opened) -> None:
    reader = SessionProcReader(opened, LocalProcReader(), timeout_s=2.0)
    reader.read(["/proc/uptime"])
    psutil.Process(opened.sessions[0].pid).kill()
    with pytest.raises(SourceUnavailableError, match=r"reading 1 /proc file\(s\) on this host"):
        reader.read(["/proc/uptime"])
    assert "/proc/uptime" in reader.read(["/proc/uptime"]).files
    assert reader.sessions_opened == 2


def test_a_session_that_does_not_answer_times_out(opened: Opened) -> None:
    def silent(argv: Sequence[str]) -> Session:
        assert list(argv) == list(SESSION_ARGV)
        return opened(["sleep", "30"])

    reader = SessionProcReader(silent, LocalProcReader(), timeout_s=0.3)
    with pytest.raises(SourceUnavailableError, match=r"within 0\.(3|29)"):
        reader.read(["/proc/uptime"])
