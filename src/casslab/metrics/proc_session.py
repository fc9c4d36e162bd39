"""A :class:`~casslab.metrics.proc_reader.ProcReader` over ONE long-lived shell on the
host: each reading is a request on the shell's standard input, answered by one ``tail``
(and ``stat -f``) on its standard output, so a sample pays no SSH session set-up (sshd's
fork, the login shell and its rc files: 100+ ms of the host's CPU a sample where root's
``.bashrc`` does work, see bench/remote_metrics.py), only a round trip and one ``tail``.

The shell runs a constant program (:data:`SESSION_SCRIPT`, POSIX sh and coreutils, nothing
installed). A request is a line ``TAG NFS NFILES`` and then one path a line; paths never
reach the shell as text to parse: ``read -r`` takes them as data into ``set --``. The
answer is the one-command reading's output (:mod:`casslab.metrics.proc_ssh`) ended by a
``==> casslab-end:TAG <==`` line (TAG holds a random token: no file's text ends it).
A reading that fails or times out closes the session (what it may still print would be
out of step); the next reading opens a new one. Closing the session's input ends the
shell; a dropped connection ends it too (sshd).
"""

from __future__ import annotations

import contextlib
import os
import secrets
import select
import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from typing import Protocol

from casslab.errors import CasslabError
from casslab.metrics.proc_reader import HostFacts, ProcRead, ProcReader
from casslab.metrics.proc_ssh import NEAREST, parse_read_output, read_argv
from casslab.metrics.proc_text import STATFS_FORMAT, ProcTextError, header
from casslab.metrics.source import SourceUnavailableError

SESSION_SCRIPT = f"""\
{NEAREST}while IFS=" " read -r tag nfs nfiles; do
  while [ "$nfs" -gt 0 ]; do
    IFS= read -r fs
    printf '==> statfs:%s <==\\n' "$fs"
    nearest "$fs"
    stat -f -c '{STATFS_FORMAT}' -- "$d" 2>/dev/null
    printf '\\n'
    nfs=$((nfs - 1))
  done
  set --
  while [ "$nfiles" -gt 0 ]; do
    IFS= read -r f
    set -- "$@" "$f"
    nfiles=$((nfiles - 1))
  done
  [ "$#" -eq 0 ] || tail -v -n +1 -- "$@" 2>/dev/null
  printf '\\n==> casslab-end:%s <==\\n' "$tag"
done
"""
SESSION_ARGV = ("sh", "-c", SESSION_SCRIPT, "casslab-proc-session")


class Session(Protocol):
    """A command running on the host with its standard input and output open."""

    def send(self, data: bytes) -> None: ...

    def receive(self, timeout_s: float) -> bytes:
        """Some output (b"" when it has ended); :class:`TimeoutError` when none came."""
        ...

    def close(self) -> None: ...


class Channel(Protocol):
    """What :class:`ChannelSession` uses of a paramiko ``Channel``."""

    def sendall(self, s: bytes) -> None: ...
    def recv(self, nbytes: int) -> bytes: ...
    def settimeout(self, timeout: float | None) -> None: ...
    def close(self) -> None: ...


class ChannelSession:
    """A :class:`Session` on an SSH channel whose command is running."""

    def __init__(self, channel: Channel) -> None:
        self._channel = channel

    def send(self, data: bytes) -> None:
        self._channel.sendall(data)

    def receive(self, timeout_s: float) -> bytes:
        self._channel.settimeout(max(timeout_s, 0.001))
        return self._channel.recv(65536)  # socket.timeout is TimeoutError

    def close(self) -> None:
        self._channel.close()


class PipeSession:
    """A :class:`Session` on a process here (the same script, without SSH)."""

    def __init__(self, argv: Sequence[str]) -> None:
        self._process = subprocess.Popen(
            list(argv), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
        )

    @property
    def pid(self) -> int:
        return self._process.pid

    def send(self, data: bytes) -> None:
        assert self._process.stdin is not None
        self._process.stdin.write(data)
        self._process.stdin.flush()

    def receive(self, timeout_s: float) -> bytes:
        assert self._process.stdout is not None
        fd = self._process.stdout.fileno()
        ready, _, _ = select.select([fd], [], [], max(timeout_s, 0.0))
        if not ready:
            raise TimeoutError(f"no output within {timeout_s:g} s")
        return os.read(fd, 65536)

    def close(self) -> None:
        if self._process.stdin is not None:
            self._process.stdin.close()
        try:
            self._process.wait(timeout=1.0)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        if self._process.stdout is not None:
            self._process.stdout.close()


def request(tag: str, paths: Sequence[str], fs: Sequence[str]) -> bytes:
    """The request lines of one reading, answered up to the line ``==> casslab-end:TAG
    <==`` (pure; paths checked as for one command; ``tag`` is one word)."""
    read_argv(paths, fs)  # refuses paths the answer could not name
    lines = [f"{tag} {len(fs)} {len(paths)}", *fs, *paths]
    return ("\n".join(lines) + "\n").encode()


class SessionProcReader:
    """Reads a host's /proc through one long-lived session opened by ``open_session``
    (``SESSION_ARGV`` in, a :class:`Session` out); ``once`` (e.g. an
    :class:`~casslab.metrics.proc_ssh.SshProcReader`) tells the host's facts and block
    devices, once. Each reading waits at most ``timeout_s``."""

    def __init__(
        self,
        open_session: Callable[[Sequence[str]], Session],
        once: ProcReader,
        *,
        timeout_s: float = 5.0,
    ) -> None:
        self._open = open_session
        self._once = once
        self._timeout_s = timeout_s
        self._session: Session | None = None
        self._seq = 0
        self._token = secrets.token_hex(8)  # no file's text ends a reading early
        self._lock = threading.Lock()
        self.sessions_opened = 0

    @property
    def where(self) -> str:
        return self._once.where

    def facts(self) -> HostFacts:
        return self._once.facts()

    def block_device(self, path: str) -> str | None:
        return self._once.block_device(path)

    def read(
        self, paths: Sequence[str], fs: Sequence[str] = (), *, at: float | None = None
    ) -> ProcRead:
        with self._lock:
            self._seq += 1
            tag = f"{self._token}-{self._seq}"
            data = request(tag, paths, fs)
            end = f"casslab-end:{tag}"
            try:
                if self._session is None:
                    self._session = self._open(SESSION_ARGV)
                    self.sessions_opened += 1
                self._session.send(data)
                text = self._answer(self._session, header(end))
                read = parse_read_output(text, [*paths, end], fs)
                return ProcRead(
                    files={p: read.files[p] for p in paths if p in read.files}, fs=read.fs
                )
            except (CasslabError, OSError, EOFError, TimeoutError, ProcTextError) as e:
                self._drop()
                raise SourceUnavailableError(
                    f"reading {len(paths)} /proc file(s) on {self.where}: {e}"
                ) from e

    def _answer(self, session: Session, end: str) -> str:
        deadline = time.monotonic() + self._timeout_s
        out = bytearray()
        marker = f"\n{end}\n".encode()
        while not out.endswith(marker):
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no complete answer within {self._timeout_s:g} s")
            chunk = session.receive(left)
            if not chunk:
                raise EOFError("the session's shell ended")
            out += chunk
        return out.decode(errors="replace")

    def _drop(self) -> None:
        if self._session is not None:
            with contextlib.suppress(OSError, EOFError):
                self._session.close()
            self._session = None

    def close(self) -> None:
        """End the session (its shell ends with its input)."""
        with self._lock:
            self._drop()
