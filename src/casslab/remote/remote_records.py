"""The records :class:`casslab.remote.ssh.RemoteHost` returns, importable without paramiko
(the cluster package names them at start-up; the SSH library loads only when used)."""

from __future__ import annotations

from casslab.record import Record


class RemoteResult(Record):
    exit_code: int
    stdout: str
    stderr: str


class RemoteProcess(Record):
    """A process started on ``host`` (its address): PID plus its start time in clock ticks
    (``/proc/<pid>/stat`` field 22), so a recycled PID is never signalled."""

    host: str
    pid: int
    start_ticks: int
