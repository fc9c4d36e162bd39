"""One SSH connection to one host (paramiko): run commands, start detached processes,
stream output, copy files, read files.

Host keys are checked against the inventory's known_hosts (:mod:`casslab.remote.hostkeys`);
authentication is by the inventory's key file only (no agent, no other keys, no
passwords). Commands are argument lists quoted by :func:`casslab.remote.scripts.command_line`;
the key's path may appear in messages, never its content.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import logging
import select
import threading
import time
from collections.abc import Callable, Generator, Mapping, Sequence
from pathlib import Path
from types import TracebackType

import paramiko

from casslab.errors import (
    AuthenticationRefusedError,
    ConfigError,
    HostUnreachableError,
    RemoteCommandError,
    RemoteError,
)
from casslab.remote import scripts
from casslab.remote.hostkeys import KnownHostsPolicy, changed_key_error, known_hosts_name
from casslab.remote.inventory import HostSpec, Inventory
from casslab.remote.remote_records import RemoteProcess, RemoteResult

log = logging.getLogger(__name__)

POLL_S = 0.2
SEND_CHUNK = 1 << 15
STDERR_TAIL_CHARS = 800


def _load_key(host: HostSpec) -> paramiko.PKey:
    try:
        return paramiko.PKey.from_path(host.key)
    except paramiko.PasswordRequiredException:
        raise ConfigError(
            f"host {host.label}: key file {host.key} is protected by a passphrase; casslab "
            "uses no agent and asks for no passphrase: give a key without one"
        ) from None
    except (paramiko.SSHException, OSError, ValueError) as error:
        raise ConfigError(
            f"host {host.label}: key file {host.key} is not a private key paramiko can read "
            f"({type(error).__name__}); give an OpenSSH private key (ed25519, ecdsa or rsa)"
        ) from None


def _tail(text: str) -> str:
    text = text.strip()
    return text if len(text) <= STDERR_TAIL_CHARS else "..." + text[-STDERR_TAIL_CHARS:]


class RemoteHost:
    """An open SSH connection to one inventory host. A context manager."""

    def __init__(self, host: HostSpec, client: paramiko.SSHClient) -> None:
        self.host = host
        self._client = client
        self._sftp: paramiko.SFTPClient | None = None
        self._sftp_missing: str | None = None  # why the host has no SFTP, once known
        self._sftp_lock = threading.Lock()

    @classmethod
    def connect(cls, host: HostSpec, inventory: Inventory, timeout_s: float = 10.0) -> RemoteHost:
        pkey = _load_key(host)
        client = paramiko.SSHClient()
        if inventory.known_hosts.is_file():
            client.load_host_keys(str(inventory.known_hosts))
        client.set_missing_host_key_policy(
            KnownHostsPolicy(inventory.known_hosts, inventory.trust_on_first_use)
        )
        name = known_hosts_name(host.address, host.port)
        try:
            client.connect(
                host.address,
                port=host.port,
                username=host.user,
                pkey=pkey,
                look_for_keys=False,
                allow_agent=False,
                timeout=timeout_s,
                banner_timeout=timeout_s,
                auth_timeout=timeout_s,
            )
        except paramiko.BadHostKeyException as error:
            client.close()
            raise changed_key_error(
                name, inventory.known_hosts, error.key, error.expected_key
            ) from None
        except paramiko.AuthenticationException:
            client.close()
            raise AuthenticationRefusedError(
                f"host {host.label}: authentication refused for user {host.user} with key "
                f"{host.key}; is its public key ({host.key}.pub) in the host's "
                f"~{host.user}/.ssh/authorized_keys?"
            ) from None
        except RemoteError:
            client.close()
            raise
        except (OSError, paramiko.SSHException, EOFError) as error:
            client.close()
            reason = str(error) or type(error).__name__
            raise HostUnreachableError(
                f"host {host.label}: cannot open an SSH connection to {host.address} port "
                f"{host.port} (tried TCP then the SSH handshake, {timeout_s:g} s limit): "
                f"{reason}; is the host up, sshd running and the port open?"
            ) from None
        log.debug("connected to %s", host.label)
        return cls(host, client)

    def __enter__(self) -> RemoteHost:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        with self._sftp_lock:
            if self._sftp is not None:
                with contextlib.suppress(OSError, EOFError):
                    self._sftp.close()
                self._sftp = None
        self._client.close()

    # commands

    def _channel(self, argv: Sequence[str]) -> paramiko.Channel:
        transport = self._client.get_transport()
        if transport is None or not transport.is_active():
            raise RemoteError(f"host {self.host.label}: the SSH connection is closed")
        channel = transport.open_session()
        channel.exec_command(scripts.command_line(argv))
        return channel

    def open_channel(self, argv: Sequence[str]) -> paramiko.Channel:
        """A channel running ``argv`` (quoted word by word) whose input stays open: for a
        long-lived conversation with a program on the host (the metrics' /proc reader).
        The caller closes it."""
        return self._channel(argv)

    def _kill_group(self, pgid: int) -> None:
        with contextlib.suppress(RemoteError, OSError, EOFError):
            self.run(["kill", "-9", f"-{pgid}"], check=False, timeout_s=10.0, wrap=False)

    def run(
        self,
        argv: Sequence[str],
        *,
        check: bool = True,
        timeout_s: float = 120.0,
        stdin: bytes | None = None,
        wrap: bool = True,
    ) -> RemoteResult:
        """Run ``argv`` on the host and wait for it (its whole process group is killed
        when it runs past ``timeout_s``). ``check``: a non-zero exit raises
        :class:`RemoteCommandError` with the command, exit code and stderr's tail.
        ``wrap=False`` runs ``argv`` as is (no own session; for the kill itself)."""
        command = scripts.grouped(argv) if wrap else list(argv)
        channel = self._channel(command)
        out, err = bytearray(), bytearray()
        try:
            if stdin is not None:
                _send(channel, stdin)
            channel.shutdown_write()
            deadline = time.monotonic() + timeout_s
            while not (channel.exit_status_ready() and channel.eof_received):
                if channel.recv_ready():
                    out += channel.recv(65536)
                elif channel.recv_stderr_ready():
                    err += channel.recv_stderr(65536)
                elif time.monotonic() >= deadline:
                    pgid = _group_of(out) if wrap else None
                    if pgid is not None:
                        self._kill_group(pgid)
                    stderr = err.decode(errors="replace")
                    raise RemoteCommandError(
                        f"host {self.host.label}: `{scripts.command_line(argv)}` ran past its "
                        f"{timeout_s:g} s limit and was killed; stderr: {_tail(stderr)}",
                        None,
                        stderr,
                    )
                else:
                    _wait(channel)
            while channel.recv_ready():
                out += channel.recv(65536)
            while channel.recv_stderr_ready():
                err += channel.recv_stderr(65536)
            code = channel.recv_exit_status()
        finally:
            channel.close()
        stdout = out.decode(errors="replace")
        if wrap:
            stdout = stdout.split("\n", 1)[1] if "\n" in stdout else ""
        result = RemoteResult(exit_code=code, stdout=stdout, stderr=err.decode(errors="replace"))
        if check and code != 0:
            raise RemoteCommandError(
                f"host {self.host.label}: `{scripts.command_line(argv)}` exited with {code}; "
                f"stderr: {_tail(result.stderr) or '(empty)'}",
                code,
                result.stderr,
            )
        return result

    def spawn(
        self,
        argv: Sequence[str],
        *,
        log_path: str,
        cwd: str | None = None,
        env: Mapping[str, str] | None = None,
    ) -> RemoteProcess:
        """Start ``argv`` detached (own session and process group, survives this
        connection), standard output and error appended to ``log_path`` on the host."""
        result = self.run(
            scripts.spawned(argv, log_path=log_path, cwd=cwd),
            stdin=scripts.env_lines(env or {}),
            timeout_s=30.0,
        )
        try:
            pid = int(result.stdout.strip().splitlines()[-1])
        except (ValueError, IndexError):
            raise RemoteError(
                f"host {self.host.label}: starting `{scripts.command_line(argv)}` printed no "
                f"PID ({result.stdout!r}); see {log_path} on the host"
            ) from None
        ticks = self.run(["sh", "-c", scripts.TICKS_SCRIPT, "casslab-ticks", str(pid)], check=False)
        if ticks.exit_code != 0:
            raise RemoteError(
                f"host {self.host.label}: `{scripts.command_line(argv)}` ended at once; "
                f"its output is in {log_path} on the host: {_tail(self.tail(log_path))}"
            )
        return RemoteProcess(host=self.host.address, pid=pid, start_ticks=int(ticks.stdout))

    def stream(
        self,
        argv: Sequence[str],
        *,
        timeout_s: float | None = None,
        env: Mapping[str, str] | None = None,
        session_pid_env: str | None = None,
        stderr_path: str | None = None,
        on_group: Callable[[int], None] | None = None,
    ) -> Generator[str, None, None]:
        """The lines ``argv`` writes to standard output, as they come. When the caller
        stops reading (closes the generator) or ``timeout_s`` passes, the command's
        process group is killed. A non-zero exit raises :class:`RemoteCommandError`.

        ``env`` is added to the command's environment over its standard input (as
        :meth:`spawn` does: never on a command line, so never in ``ps``);
        ``session_pid_env`` names a variable set to the PID of this connection's sshd
        process (a watchdog for the command: gone when the connection is).
        ``stderr_path``: the command's standard error is appended to that file on the host
        instead of coming back (a command that outlives a lost connection must not die
        writing to it). ``on_group`` gets the command's process group id as soon as it is
        known (to signal it from another thread)."""
        wrapped = bool(env or session_pid_env or stderr_path)
        command = scripts.with_env(argv, session_pid_env, stderr_path) if wrapped else argv
        channel = self._channel(scripts.grouped(command))
        if wrapped:
            _send(channel, scripts.env_lines(env or {}))
        channel.shutdown_write()
        deadline = None if timeout_s is None else time.monotonic() + timeout_s
        pgid: int | None = None
        pending = b""
        err = bytearray()
        finished = False
        try:
            while True:
                if channel.recv_ready():
                    chunk = channel.recv(65536)
                    if not chunk:
                        break
                    pending += chunk
                    *lines, pending = pending.split(b"\n")
                    for line in lines:
                        if pgid is None:
                            pgid = int(line)
                            if on_group is not None:
                                on_group(pgid)
                            continue
                        yield line.decode(errors="replace")
                elif channel.recv_stderr_ready():
                    err += channel.recv_stderr(65536)
                elif channel.exit_status_ready() and channel.eof_received:
                    break
                elif deadline is not None and time.monotonic() >= deadline:
                    raise RemoteCommandError(
                        f"host {self.host.label}: `{scripts.command_line(argv)}` ran past its "
                        f"{timeout_s:g} s limit and was killed",
                        None,
                        err.decode(errors="replace"),
                    )
                else:
                    _wait(channel)
            if pending and pgid is not None:
                yield pending.decode(errors="replace")
            code = channel.recv_exit_status()
            finished = True
            if code != 0:
                stderr = err.decode(errors="replace")
                raise RemoteCommandError(
                    f"host {self.host.label}: `{scripts.command_line(argv)}` exited with "
                    f"{code}; stderr: {_tail(stderr) or '(empty)'}",
                    code,
                    stderr,
                )
        finally:
            if not finished and pgid is not None:
                self._kill_group(pgid)
            channel.close()

    # processes

    def alive(self, proc: RemoteProcess) -> bool:
        """True when ``proc`` still runs (same PID and start time, not a zombie)."""
        argv = scripts.signal_argv(proc.pid, proc.start_ticks, 0, group=False)
        return self.run(argv, check=False, timeout_s=30.0).exit_code == 0

    def signal(self, proc: RemoteProcess, sig: int, *, group: bool = True) -> None:
        """Send ``sig`` to ``proc`` (its process group with ``group``); a process that has
        ended (or whose PID now names another process) is left alone."""
        argv = scripts.signal_argv(proc.pid, proc.start_ticks, int(sig), group=group)
        result = self.run(argv, check=False, timeout_s=30.0)
        if result.exit_code not in (0, scripts.NOT_THERE):
            raise RemoteCommandError(
                f"host {self.host.label}: signal {int(sig)} to PID {proc.pid} failed: "
                f"{_tail(result.stderr)}",
                result.exit_code,
                result.stderr,
            )

    # files

    def _sftp_client(self) -> paramiko.SFTPClient | None:
        """The SFTP session, or None when the host's sshd offers no SFTP subsystem (no
        ``Subsystem sftp`` line in its sshd_config): copies then go over a command."""
        if self._sftp is None and self._sftp_missing is None:
            try:
                self._sftp = self._client.open_sftp()
            except (paramiko.SSHException, EOFError) as error:
                self._sftp_missing = str(error) or type(error).__name__
                log.info(
                    "host %s: no SFTP (%s; no 'Subsystem sftp' line in its sshd_config?); "
                    "files are copied with cat over SSH commands",
                    self.host.label,
                    self._sftp_missing,
                )
        return self._sftp

    def _write_part(self, data: bytes | Path, part: str) -> None:
        """``data`` (bytes or a local file) to ``part`` on the host: over SFTP, or through
        ``cat`` on a command's input when the host has no SFTP subsystem."""
        with self._sftp_lock:
            sftp = self._sftp_client()
            if sftp is not None:
                if isinstance(data, Path):
                    sftp.put(str(data), part)
                else:
                    sftp.putfo(io.BytesIO(data), part)
                return
        payload = data.read_bytes() if isinstance(data, Path) else data
        self.run(["sh", "-c", 'cat > "$1"', "casslab-put", part], stdin=payload, timeout_s=600.0)

    def put(self, local: Path, remote: str) -> None:
        """Copy ``local`` to ``remote`` (through a temporary name, renamed when its sha256
        on the host matches the local file's)."""
        digest = hashlib.sha256()
        with local.open("rb") as source:
            for block in iter(lambda: source.read(1 << 20), b""):
                digest.update(block)
        self._write_part(local, remote + ".casslab-part")
        self._finish_copy(remote, digest.hexdigest(), str(local))

    def put_bytes(self, data: bytes, remote: str) -> None:
        self._write_part(data, remote + ".casslab-part")
        self._finish_copy(remote, hashlib.sha256(data).hexdigest(), f"{len(data)} bytes")

    def _finish_copy(self, remote: str, expected: str, what: str) -> None:
        part = remote + ".casslab-part"
        got = self.sha256(part)
        if got != expected:
            self.run(["rm", "-f", "--", part], check=False)
            raise RemoteError(
                f"host {self.host.label}: copy of {what} to {remote} has sha256 {got}, not "
                f"{expected}; the copy was removed, run again (is the host's disk full?)"
            )
        self.run(["mv", "-f", "--", part, remote])

    def sha256(self, remote: str) -> str | None:
        """The hex sha256 of ``remote`` on the host; None when it is absent."""
        result = self.run(
            ["sh", "-c", scripts.SHA256_SCRIPT, "casslab-sha256", remote], check=False
        )
        if result.exit_code == scripts.NOT_THERE:
            return None
        if result.exit_code != 0:
            raise RemoteCommandError(
                f"host {self.host.label}: sha256sum {remote} failed: {_tail(result.stderr)}",
                result.exit_code,
                result.stderr,
            )
        return result.stdout.split()[0]

    def read_text(self, remote: str) -> str:
        """The text of ``remote`` on the host (also /proc files, whose size reads 0), read
        with ``cat`` over a command channel: hosts without an SFTP subsystem serve it too."""
        result = self.run(["cat", "--", remote], check=False)
        if result.exit_code != 0:
            reason = _tail(result.stderr) or f"cat exited with {result.exit_code}"
            raise RemoteError(f"host {self.host.label}: cannot read {remote}: {reason}")
        return result.stdout

    def tail(self, remote: str, lines: int = 20) -> str:
        """The last ``lines`` lines of ``remote`` ('' when it cannot be read)."""
        result = self.run(["tail", "-n", str(lines), "--", remote], check=False)
        return result.stdout


def _send(channel: paramiko.Channel, data: bytes) -> None:
    """All of ``data``, in pieces (paramiko's ``sendall`` copies the rest of its argument
    after every packet: quadratic in the size of a tar stream)."""
    view = memoryview(data)
    offset = 0
    while offset < len(view):
        offset += channel.send(bytes(view[offset : offset + SEND_CHUNK]))


def _wait(channel: paramiko.Channel) -> None:
    """Until data comes, or (after the end of output, when the channel's pipe stays
    readable) the exit status, at most :data:`POLL_S`."""
    if channel.eof_received:
        channel.status_event.wait(POLL_S)
    else:
        select.select([channel], [], [], POLL_S)


def _group_of(out: bytes | bytearray) -> int | None:
    head = bytes(out).split(b"\n", 1)
    if len(head) < 2:
        return None
    try:
        return int(head[0])
    except ValueError:
        return None


__all__ = ["RemoteHost", "RemoteProcess", "RemoteResult"]
