"""Run load clients on client hosts over SSH: :class:`RemoteLauncher`.

The :class:`~casslab.load.clients.Launcher` for an inventory's ``clients:`` (docs/clients.md,
"Client hosts"): client *i* runs on client host *i* (the schema run on the first). For each,
over one :class:`~casslab.remote.ssh.RemoteHost` connection:

* the engine binary goes to ``<base_dir>/engine/<sha256 prefix>/casslab-engine`` (not
  copied again while its digest matches);
* the client's spec goes to ``<base_dir>/runs/<run id>/<client>/spec.json`` (its HDR log
  beside it, a TLS CA file too); a password never goes in it: it reaches the engine in its
  environment, sent over the command's standard input (never in ``ps``, a file or a log);
* the engine runs there as :mod:`casslab.load.engine` runs it here (``--spec FILE``, its
  own process group), its records streamed back as they come; its parent-PID variable names
  the connection's sshd process, so the engine stops by itself when the connection is gone;
* its HDR log is read back, and ``<base_dir>/runs/<run id>/<client>/`` removed.

Locally, ``<workdir>/<client>/`` keeps the spec as sent, the records (``engine.jsonl``),
the engine's stderr (written to a file on the host, never to the connection: an engine
must not die writing to a connection that is gone before its watchdog stops it) and the
HDR log, as :class:`LocalLauncher` does.
A client that fails (no connection, non-zero exit, no summary, no HDR log) is a
:class:`ClientRun` with its failure; Ctrl-C or an exception kills every engine's process
group before it propagates. Clients are named ``client-<i>@<address>``.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import secrets
import signal
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from casslab.engine_contract.engine_records import ErrorRecord, IntervalRecord, SummaryRecord
from casslab.engine_contract.workload_spec import WorkloadSpec
from casslab.errors import CasslabError, ConfigError, EngineError, RemoteCommandError
from casslab.load import credentials, engine
from casslab.load.clients import STDERR_TAIL_CHARS, ClientRun, ClientSpec
from casslab.load.engine import EngineResult, Wording
from casslab.load.merge import ClientFailure
from casslab.remote.inventory import HostSpec, Inventory

if TYPE_CHECKING:  # paramiko loads only when a client runs
    from casslab.remote.ssh import RemoteHost

ENGINE_DIR = "engine"
RUNS_DIR = "runs"
DIGEST_PREFIX_CHARS = 16
HDR_LOG_FILE = "latency.hlog"
CA_FILE = "tls-ca.pem"
JOIN_POLL_S = 0.2
CONNECT_TIMEOUT_S = 10.0


def new_run_id() -> str:
    """A run's folder name on the client hosts: UTC time and random hex."""
    return time.strftime("%Y%m%dT%H%M%SZ", time.gmtime()) + "-" + secrets.token_hex(4)


def client_label(client: str, host: HostSpec) -> str:
    """``client-0@10.0.0.21``: the client's name and its host's address."""
    return f"{client}@{host.address}"


def engine_path(base_dir: str, digest: str) -> str:
    """Where the engine whose sha256 is ``digest`` lives on a host."""
    prefix = digest[:DIGEST_PREFIX_CHARS]
    return str(PurePosixPath(base_dir, ENGINE_DIR, prefix, engine.ENGINE_NAME))


def run_dir(base_dir: str, run_id: str) -> str:
    return str(PurePosixPath(base_dir, RUNS_DIR, run_id))


def remote_spec(
    spec: WorkloadSpec,
    folder: str,
    *,
    measured: bool,
    environ: Mapping[str, str],
) -> tuple[WorkloadSpec, dict[str, str]]:
    """The spec as written on the host, in ``folder`` (pure): records on standard output,
    the HDR log in ``folder`` (none for an unmeasured run), a TLS CA file as copied into
    ``folder``; and the engine's environment there, which holds the password (typed, or
    read now from the local variable ``password_env`` names) under
    :data:`~casslab.load.credentials.ENGINE_PASSWORD_ENV`. Raises ConfigError when the
    named variable is not set here."""
    output = spec.output.model_copy(
        update={
            "jsonl": None,
            "hdr_log": str(PurePosixPath(folder, HDR_LOG_FILE)) if measured else None,
        }
    )
    connection = spec.connection
    if connection.tls_ca_file is not None:
        connection = connection.model_copy(
            update={"tls_ca_file": str(PurePosixPath(folder, CA_FILE))}
        )
    env: dict[str, str] = {}
    if connection.password is not None:
        env[credentials.ENGINE_PASSWORD_ENV] = connection.password
    elif connection.password_env is not None:
        problem = credentials.password_env_problem(connection.password_env)
        if connection.password_env not in environ:
            raise ConfigError(problem or f"password-env={connection.password_env} is not set")
        env[credentials.ENGINE_PASSWORD_ENV] = environ[connection.password_env]
    if env:
        connection = connection.model_copy(
            update={"password": None, "password_env": credentials.ENGINE_PASSWORD_ENV}
        )
    sent = spec.model_copy(update={"output": output, "connection": connection})
    return sent, env


def collect(lines: Sequence[str]) -> tuple[EngineResult | None, ErrorRecord | None]:
    """The engine's output lines as one run's records (pure): the result (None without a
    summary) and the fatal error record, if one came."""
    intervals: list[IntervalRecord] = []
    errors: list[ErrorRecord] = []
    summary: SummaryRecord | None = None
    fatal: ErrorRecord | None = None
    for line in lines:
        if not line.strip():
            continue
        record = engine.parse_record(line)
        if isinstance(record, IntervalRecord):
            intervals.append(record)
        elif isinstance(record, SummaryRecord):
            summary = record
        elif record.fatal:
            fatal = record
        else:
            errors.append(record)
    if summary is None:
        return None, fatal
    return EngineResult(intervals=intervals, summary=summary, errors=errors), fatal


def _sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as source:
        for block in iter(lambda: source.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _tail(text: str) -> str:
    return text[-STDERR_TAIL_CHARS:].strip()


@dataclass
class _Client:
    """One running client, as the launching thread and the worker share it."""

    item: ClientSpec
    host: HostSpec
    done: threading.Event = field(default_factory=threading.Event)
    remote: RemoteHost | None = None  # once connected
    group: int | None = None  # the engine's process group on the host
    run: ClientRun | None = None


@dataclass
class RemoteLauncher:
    """Engines on the client hosts of ``inventory``, client *i* on ``clients[i]``."""

    inventory: Inventory
    workdir: Path
    timeout_s: float | None = None
    wording: Wording = field(default_factory=Wording)
    run_id: str = field(default_factory=new_run_id)
    connect_timeout_s: float = CONNECT_TIMEOUT_S
    _digest: str | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        if not self.inventory.clients:
            raise ConfigError(
                f"inventory {self.inventory.path} has no `clients:`; list the hosts that "
                "run the load engine as clients: [{address, user, key}] (docs/clients.md)"
            )

    def _binary(self) -> tuple[Path, str]:
        binary = engine.engine_binary()
        if self._digest is None:
            self._digest = _sha256_of(binary)
        return binary, self._digest

    def _install(self, remote: RemoteHost, base_dir: str) -> str:
        binary, digest = self._binary()
        target = engine_path(base_dir, digest)
        if remote.sha256(target) != digest:
            remote.run(["mkdir", "-p", "--", str(PurePosixPath(target).parent)])
            remote.put(binary, target)
            remote.run(["chmod", "755", "--", target])
        return target

    def _run_one(self, client: _Client) -> ClientRun:
        from casslab.remote.ssh import RemoteHost as Connection

        item, host = client.item, client.host
        name = client_label(item.client, host)
        local = self.workdir / item.client
        local.mkdir(parents=True, exist_ok=True)
        folder = str(PurePosixPath(run_dir(host.base_dir, self.run_id), item.client))
        stderr = ""
        try:
            sent, env = remote_spec(item.spec, folder, measured=item.measured, environ=os.environ)
            (local / engine.SPEC_FILE).write_text(sent.model_dump_json(indent=2) + "\n")
            with Connection.connect(host, self.inventory, self.connect_timeout_s) as remote:
                client.remote = remote
                try:
                    return self._on_host(client, remote, sent, env, folder, name)
                finally:
                    remote.run(["rm", "-rf", "--", folder], check=False)
                    parent = run_dir(host.base_dir, self.run_id)
                    remote.run(["rmdir", "--ignore-fail-on-non-empty", "--", parent], check=False)
        except RemoteCommandError as error:
            stderr = error.stderr
            reason = str(error)
        except CasslabError as error:
            reason = str(error)
        if stderr:
            (local / engine.STDERR_FILE).write_text(stderr)
        failure = ClientFailure(
            client=name, reason=self.wording.say(reason), stderr_tail=_tail(stderr)
        )
        return ClientRun(client=name, failure=failure)

    def _on_host(
        self,
        client: _Client,
        remote: RemoteHost,
        sent: WorkloadSpec,
        env: dict[str, str],
        folder: str,
        name: str,
    ) -> ClientRun:
        local = self.workdir / client.item.client
        binary = self._install(remote, client.host.base_dir)
        remote.run(["mkdir", "-p", "--", folder])
        spec_file = str(PurePosixPath(folder, engine.SPEC_FILE))
        remote.put_bytes((sent.model_dump_json(indent=2) + "\n").encode(), spec_file)
        ca = client.item.spec.connection.tls_ca_file
        if ca is not None and sent.connection.tls_ca_file is not None:
            remote.put(Path(ca).expanduser(), sent.connection.tls_ca_file)

        def started(group: int) -> None:
            client.group = group

        lines: list[str] = []
        code_error: RemoteCommandError | None = None
        stderr_file = str(PurePosixPath(folder, engine.STDERR_FILE))
        with (local / engine.RECORDS_FILE).open("w", encoding="utf-8") as records:
            stream = remote.stream(
                [binary, "--spec", spec_file],
                timeout_s=self.timeout_s,
                env=env,
                session_pid_env=engine.PARENT_PID_ENV,
                stderr_path=stderr_file,  # not the connection: a lost one must not kill it
                on_group=started,
            )
            try:
                with contextlib.closing(stream):
                    for line in stream:
                        records.write(line + "\n")
                        records.flush()
                        lines.append(line)
            except RemoteCommandError as error:
                code_error = error
        result, fatal = collect(lines)
        stderr = ""
        with contextlib.suppress(CasslabError):
            stderr = remote.read_text(stderr_file)
        (local / engine.STDERR_FILE).write_text(stderr)
        if code_error is not None:
            if code_error.exit_code is None:  # ran past its deadline
                reason = f"load engine on {client.host.label}: {code_error}"
            else:
                said = fatal.message if fatal is not None else _tail(stderr)
                reason = (
                    f"load engine on {client.host.label} exited with status "
                    f"{code_error.exit_code}: {said or 'no message'}"
                )
            failure = ClientFailure(
                client=name, reason=self.wording.say(reason), stderr_tail=_tail(stderr)
            )
            return ClientRun(client=name, result=result, failure=failure)
        if result is None:
            raise EngineError(
                f"load engine on {client.host.label} ended without a summary record; its "
                f"records are in {local / engine.RECORDS_FILE}"
            )
        if sent.output.hdr_log is None:
            return ClientRun(client=name, result=result)
        text = remote.read_text(sent.output.hdr_log)
        (local / HDR_LOG_FILE).write_text(text, encoding="utf-8")
        wanted = client.item.spec.output.hdr_log
        if wanted is not None:
            target = Path(wanted).expanduser()
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
        return ClientRun(client=name, result=result, hlog=text)

    def _work(self, client: _Client) -> None:
        try:
            client.run = self._run_one(client)
        except Exception as error:  # noqa: BLE001 - a client's failure is reported, not raised
            name = client_label(client.item.client, client.host)
            reason = f"{type(error).__name__}: {error}"
            client.run = ClientRun(client=name, failure=ClientFailure(client=name, reason=reason))
        finally:
            client.done.set()

    def _stop(self, running: Sequence[_Client]) -> None:
        """Kill every engine still running (SIGTERM, SIGKILL after the grace time), then
        close the connections (the engines' watchdog: their sshd process goes)."""
        for sig in (signal.SIGTERM, signal.SIGKILL):
            for client in running:
                remote = client.remote
                if client.group is not None and not client.done.is_set() and remote is not None:
                    with contextlib.suppress(CasslabError, OSError, EOFError):
                        remote.run(
                            ["kill", f"-{int(sig)}", "--", f"-{client.group}"],
                            check=False,
                            timeout_s=10.0,
                            wrap=False,
                        )
            deadline = time.monotonic() + engine.KILL_GRACE_S
            for client in running:
                client.done.wait(max(0.0, deadline - time.monotonic()))
        for client in running:
            if client.remote is not None and not client.done.is_set():
                with contextlib.suppress(Exception):
                    client.remote.close()

    def launch(self, clients: Sequence[ClientSpec]) -> list[ClientRun]:
        hosts = self.inventory.clients
        if len(clients) > len(hosts):
            raise ConfigError(
                f"{len(clients)} load clients but inventory {self.inventory.path} lists "
                f"{len(hosts)} client hosts; list one client host per client"
            )
        self._binary()  # no engine here: raise before any client starts
        running = [_Client(item, host) for item, host in zip(clients, hosts, strict=False)]
        for client in running:
            name = client.item.client
            threading.Thread(target=self._work, args=(client,), name=name, daemon=True).start()
        try:
            for client in running:
                while not client.done.wait(JOIN_POLL_S):
                    pass
        except BaseException:  # Ctrl-C or an error here: stop every engine, then re-raise
            self._stop(running)
            raise
        runs = [client.run for client in running]
        assert all(run is not None for run in runs)
        return [run for run in runs if run is not None]
