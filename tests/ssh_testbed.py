"""A test bed of SSH "hosts" on this machine: :class:`SshLab` makes N network namespaces on
one Linux bridge (a free /28 block of 10.215.0.0/24, the bridge at its first address,
host k at the k+1-th; several labs can run at once), each
running a real OpenSSH server (``/usr/sbin/sshd -D``, Debian's openssh-server) with its
own host key, key authentication only, and its own base directory; a client key pair
authorized on every host, a known_hosts file listing every host key, and
:meth:`SshLab.inventory` writes an inventory file for it. The root namespace reaches every
host through the bridge. Needs root, ``ip`` and ``sshd`` (``make ssh`` installs it).

Names carry the lab's id (six hex digits): bridge ``csb<id>``, host ends ``csv<id>h<k>``,
namespaces ``clssh<id>h<k>``. Each lab records what it made, and the PIDs (with start
times) of its sshd servers, in ``<root>/<id>/state.json`` before it makes it;
:func:`remove_leftovers` removes what labs of processes that have ended left behind, by
those records only. Leaving a lab kills its sshd servers and every process still in its
namespaces, and removes namespaces, veths, bridge and the lab's folder.

Only the tests and ``bench/`` use it (a bench script puts ``tests/`` on ``sys.path``); it is
not part of the casslab package.
"""

from __future__ import annotations

import contextlib
import ipaddress
import os
import secrets
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any

import psutil
import yaml

from casslab import pids, procgroup
from casslab.errors import ClusterError, SetupError
from casslab.host.ip_command import ip
from casslab.record import Record

LAB_SUBNET = ipaddress.IPv4Network("10.215.0.0/24")
BLOCK_PREFIX = 28
SSHD = Path("/usr/sbin/sshd")
SSH_KEYGEN = "ssh-keygen"
START_TIMEOUT_S = 15.0
STOP_TIMEOUT_S = 10.0
MAX_HOSTS = 13  # a /28 block: 14 addresses, one for the bridge


def default_root() -> Path:
    return Path(tempfile.gettempdir()) / "casslab-sshlab"


def missing_tools() -> str | None:
    """Why a lab cannot be made here (None when it can): for tests' skip reasons."""
    if os.geteuid() != 0:
        return "the SSH test bed needs root (network namespaces)"
    if not SSHD.is_file():
        return f"{SSHD} is missing: `make ssh` installs Debian's openssh-server"
    for tool in ("ip", SSH_KEYGEN):
        if shutil.which(tool) is None:
            return f"`{tool}` is missing: `make isolation ssh` installs it"
    return None


class LabHost(Record):
    number: int
    address: str
    namespace: str
    host_interface: str
    base_dir: str


class LabProcess(Record):
    pid: int
    create_time: float


class LabState(Record):
    schema_version: int = 1
    lab_id: str
    owner: LabProcess
    bridge: str
    bridge_address: str
    hosts: tuple[LabHost, ...]
    sshd: tuple[LabProcess, ...] = ()


def _plan(
    lab_id: str, count: int, folder: Path, block: ipaddress.IPv4Network
) -> tuple[LabHost, ...]:
    addresses = list(block.hosts())
    return tuple(
        LabHost(
            number=k,
            address=str(addresses[k]),
            namespace=f"clssh{lab_id}h{k}",
            host_interface=f"csv{lab_id}h{k}",
            base_dir=str(folder / f"h{k}" / "base"),
        )
        for k in range(1, count + 1)
    )


def _write_state(folder: Path, state: LabState) -> None:
    part = folder / "state.json.part"
    part.write_text(state.model_dump_json(indent=2))
    part.replace(folder / "state.json")


def _keygen(path: Path, comment: str) -> None:
    subprocess.run(
        [SSH_KEYGEN, "-q", "-t", "ed25519", "-N", "", "-C", comment, "-f", str(path)],
        check=True,
        capture_output=True,
    )


def _sshd_config(host: LabHost, folder: Path, *, sftp: bool = True, login_rc: bool = False) -> str:
    """The host's sshd_config; without ``sftp`` it has no ``Subsystem sftp`` line, as some
    hardened hosts do (sshd then refuses the SFTP subsystem).

    Without ``login_rc``, ``SetEnv SHLVL=1``: sshd runs each command with the user's login
    shell, root's bash here, and Debian's bash then reads ~/.bashrc unless it is a nested
    shell (SHLVL). This machine's root ~/.bashrc is a developer's (pyenv's init: some 20
    processes, 0.12 s of CPU for each command, 3 ms without it); the lab's hosts stand for
    Cassandra hosts, and the tests' commands run as on one whose ~/.bashrc is plain. The
    ssh module alone used 282 CPU-s in 297 s with it, 227 in 280 s without (2026-11-30).
    bench/remote_metrics.py asks for ``login_rc``: it measures what a shell's rc files
    cost a command."""
    own = folder / f"h{host.number}"
    return "\n".join(
        [
            f"ListenAddress {host.address}",
            "Port 22",
            f"HostKey {own / 'ssh_host_ed25519_key'}",
            f"PidFile {own / 'sshd.pid'}",
            f"AuthorizedKeysFile {folder / 'authorized_keys'}",
            "PubkeyAuthentication yes",
            "PasswordAuthentication no",
            "KbdInteractiveAuthentication no",
            "UsePAM no",
            "PermitRootLogin prohibit-password",
            "StrictModes no",
            "PrintMotd no",
            *([] if login_rc else ["SetEnv SHLVL=1"]),
            *(["Subsystem sftp internal-sftp"] if sftp else []),
            "LogLevel VERBOSE",
            "",
        ]
    )


def _wait_listening(address: str, process: subprocess.Popen[bytes], log: Path) -> None:
    end = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < end:
        if process.poll() is not None:
            raise ClusterError(
                f"sshd for test host {address} exited with {process.returncode}: "
                f"{log.read_text(errors='replace')[-800:] if log.exists() else ''}"
            )
        with contextlib.suppress(OSError), socket.create_connection((address, 22), timeout=0.5):
            return
        time.sleep(0.05)
    raise ClusterError(
        f"sshd for test host {address} did not listen on port 22 within {START_TIMEOUT_S:g} s; "
        f"see {log}"
    )


def _stop_process(process: LabProcess) -> None:
    if not pids.alive(process.pid, process.create_time):
        return
    procgroup.signal_group(process.pid, signal.SIGTERM)
    running = lambda: pids.alive(process.pid, process.create_time)  # noqa: E731
    if not procgroup.wait_until_gone(running, STOP_TIMEOUT_S):
        procgroup.signal_group(process.pid, signal.SIGKILL)
        procgroup.wait_until_gone(running, STOP_TIMEOUT_S)


def namespace_pids(namespace: str) -> list[int]:
    """The PIDs of every process in network namespace ``namespace`` ([] when it is gone)."""
    result = subprocess.run(
        ["ip", "netns", "pids", namespace], capture_output=True, text=True, check=False
    )
    return [int(word) for word in result.stdout.split()] if result.returncode == 0 else []


def _kill_namespace_processes(namespaces: Sequence[str]) -> None:
    for sig in (signal.SIGTERM, signal.SIGKILL):
        found = [pid for ns in namespaces for pid in namespace_pids(ns)]
        for pid in found:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, sig)
        end = time.monotonic() + STOP_TIMEOUT_S
        while found and time.monotonic() < end:
            found = [p for p in found if psutil.pid_exists(p) and _not_zombie(p)]
            time.sleep(0.05)
        if not found:
            return


def _not_zombie(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def _tear_down(state: LabState, folder: Path) -> None:
    """Remove everything ``state`` records: sshd servers (by PID and start time), every
    process in its namespaces, the namespaces, veths and bridge, and the lab's folder."""
    for process in state.sshd:
        _stop_process(process)
    _kill_namespace_processes([h.namespace for h in state.hosts])
    for host in state.hosts:
        ip("netns", "del", host.namespace, check=False)
        ip("link", "del", host.host_interface, check=False)
    ip("link", "del", state.bridge, check=False)
    shutil.rmtree(folder, ignore_errors=True)


def remove_leftovers(root: Path | None = None) -> list[str]:
    """Remove what labs whose owning process has ended left behind (a crashed test):
    by the names and PIDs in their own state files. Returns the lab ids removed."""
    root = root or default_root()
    removed: list[str] = []
    if not root.is_dir():
        return removed
    for folder in sorted(root.iterdir()):
        state_file = folder / "state.json"
        if not state_file.is_file():
            continue
        state = LabState.model_validate_json(state_file.read_text())
        if pids.alive(state.owner.pid, state.owner.create_time):
            continue
        _tear_down(state, folder)
        removed.append(state.lab_id)
    return removed


class SshLab:
    """``with SshLab(3) as lab:`` three SSH hosts; see the module's docstring."""

    def __init__(
        self,
        hosts: int = 3,
        *,
        root: Path | None = None,
        sftp: bool = True,
        login_rc: bool = False,
    ) -> None:
        if not 1 <= hosts <= MAX_HOSTS:
            raise ClusterError(f"an SSH lab has 1 to {MAX_HOSTS} hosts, not {hosts}")
        self.lab_id = secrets.token_hex(3)
        self.root = root or default_root()
        self.dir = self.root / self.lab_id
        self.count = hosts
        self.sftp = sftp  # False: the hosts' sshd offers no SFTP subsystem
        self.login_rc = login_rc  # True: each command's bash reads root's ~/.bashrc
        self.hosts: tuple[LabHost, ...] = ()
        self.bridge_address = ""
        self.spare_address = ""
        self.bridge = f"csb{self.lab_id}"
        self.client_key = self.dir / "client_key"
        self.known_hosts = self.dir / "known_hosts"
        self._state: LabState | None = None

    def __enter__(self) -> SshLab:
        reason = missing_tools()
        if reason is not None:
            raise SetupError(reason)
        remove_leftovers(self.root)
        block = _free_block()
        self.spare_address = str(list(block.hosts())[-1])  # on the bridge, no host: for tests
        self.bridge_address = str(next(block.hosts()))
        self.hosts = _plan(self.lab_id, self.count, self.dir, block)
        self.dir.mkdir(parents=True, mode=0o700)
        me = psutil.Process()
        self._state = LabState(
            lab_id=self.lab_id,
            owner=LabProcess(pid=me.pid, create_time=me.create_time()),
            bridge=self.bridge,
            bridge_address=self.bridge_address,
            hosts=self.hosts,
        )
        _write_state(self.dir, self._state)
        try:
            self._create()
        except BaseException:
            _tear_down(self._state, self.dir)
            raise
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._state is not None:
            _tear_down(self._state, self.dir)
            self._state = None

    def _create(self) -> None:
        assert self._state is not None
        _keygen(self.client_key, "casslab-lab-client")
        shutil.copy(self.client_key.with_suffix(".pub"), self.dir / "authorized_keys")
        ip("link", "add", self.bridge, "type", "bridge")
        ip("addr", "add", f"{self.bridge_address}/{BLOCK_PREFIX}", "dev", self.bridge)
        ip("link", "set", self.bridge, "up")
        known: list[str] = []
        Path("/run/sshd").mkdir(mode=0o755, exist_ok=True)  # sshd's privilege separation
        for host in self.hosts:
            own = self.dir / f"h{host.number}"
            Path(host.base_dir).mkdir(parents=True)
            _keygen(own / "ssh_host_ed25519_key", f"casslab-lab-h{host.number}")
            public = (own / "ssh_host_ed25519_key.pub").read_text().split()
            known.append(f"{host.address} {public[0]} {public[1]}\n")
            self._add_namespace(host)
            (own / "sshd_config").write_text(
                _sshd_config(host, self.dir, sftp=self.sftp, login_rc=self.login_rc)
            )
        self.known_hosts.write_text("".join(known))
        for host in self.hosts:
            self._start_sshd(host)

    def _add_namespace(self, host: LabHost) -> None:
        ns = host.namespace
        ip("netns", "add", ns)
        ip("link", "add", host.host_interface, "type", "veth", "peer", "name", "eth0", "netns", ns)
        ip("link", "set", host.host_interface, "master", self.bridge, "up")
        ip("addr", "add", f"{host.address}/{BLOCK_PREFIX}", "dev", "eth0", namespace_name=ns)
        ip("link", "set", "lo", "up", namespace_name=ns)
        ip("link", "set", "eth0", "up", namespace_name=ns)
        ip("route", "add", "default", "via", self.bridge_address, namespace_name=ns)

    def _start_sshd(self, host: LabHost) -> None:
        assert self._state is not None
        own = self.dir / f"h{host.number}"
        log = own / "sshd.log"
        command = ["ip", "netns", "exec", host.namespace, str(SSHD), "-D", "-f"]
        command += [str(own / "sshd_config"), "-E", str(log)]
        process = subprocess.Popen(
            command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, start_new_session=True
        )
        created = pids.create_time(process.pid) or time.time()
        record = LabProcess(pid=process.pid, create_time=created)
        self._state = self._state.model_copy(update={"sshd": (*self._state.sshd, record)})
        _write_state(self.dir, self._state)
        _wait_listening(host.address, process, log)

    def inventory(
        self,
        path: Path | None = None,
        *,
        hosts: Sequence[int] | None = None,
        clients: Sequence[int] = (),
        trust_on_first_use: bool = False,
        known_hosts: Path | None = None,
        key: Path | None = None,
        overrides: Mapping[int, Mapping[str, Any]] | None = None,
    ) -> Path:
        """Write an inventory file (default ``<lab>/hosts.yaml``) naming lab hosts
        ``hosts`` (numbers from 1; default all but ``clients``) as database hosts and
        ``clients`` as client hosts, with the lab's client key and known_hosts (or the
        ones given). ``overrides``: extra or replaced fields per host number."""
        path = path or self.dir / "hosts.yaml"
        chosen = hosts if hosts is not None else [h.number for h in self.hosts]
        chosen = [n for n in chosen if n not in clients]

        def entry(number: int) -> dict[str, Any]:
            host = self.hosts[number - 1]
            fields: dict[str, Any] = {
                "address": host.address,
                "user": "root",
                "key": str(key or self.client_key),
                "base_dir": host.base_dir,
            }
            fields.update((overrides or {}).get(number, {}))
            return fields

        document: dict[str, Any] = {
            "known_hosts": str(known_hosts or self.known_hosts),
            "trust_on_first_use": trust_on_first_use,
            "hosts": [entry(n) for n in chosen],
        }
        if clients:
            document["clients"] = [entry(n) for n in clients]
        path.write_text(yaml.safe_dump(document, sort_keys=False))
        return path

    def processes(self) -> dict[str, list[int]]:
        """Each host's address and the PIDs now in its namespace (sshd included)."""
        return {h.address: namespace_pids(h.namespace) for h in self.hosts}

    def sshd_pids(self) -> list[int]:
        return [p.pid for p in self._state.sshd] if self._state else []


def _free_block() -> ipaddress.IPv4Network:
    """The first /28 block of :data:`LAB_SUBNET` no interface of this machine is on."""
    used = [
        ipaddress.IPv4Network(f"{a.address}/{a.netmask}", strict=False)
        for addresses in psutil.net_if_addrs().values()
        for a in addresses
        if a.family == socket.AF_INET and a.netmask
    ]
    for block in LAB_SUBNET.subnets(new_prefix=BLOCK_PREFIX):
        if not any(block.overlaps(u) for u in used):
            return block
    raise ClusterError(
        f"no free /{BLOCK_PREFIX} block left in {LAB_SUBNET} for an SSH lab: leave other "
        "labs first (remove_leftovers() removes those of crashed tests)"
    )
