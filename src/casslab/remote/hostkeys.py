"""Host-key checking for SSH connections: known_hosts first, always.

A host whose key known_hosts does not list is refused (:class:`UnknownHostKeyError`, with
its fingerprint and how to add it) unless the inventory says ``trust_on_first_use: true``;
then its key is appended to that known_hosts file, as OpenSSH's ``accept-new`` does. A
host whose key differs from the recorded one is always refused
(:class:`ChangedHostKeyError`, with both fingerprints).
"""

from __future__ import annotations

import base64
import hashlib
import os
from pathlib import Path

import paramiko

from casslab.errors import ChangedHostKeyError, UnknownHostKeyError


def fingerprint(key: paramiko.PKey) -> str:
    """OpenSSH's form: ``SHA256:<base64 of the key blob's digest, unpadded>``."""
    digest = hashlib.sha256(key.asbytes()).digest()
    return "SHA256:" + base64.b64encode(digest).decode().rstrip("=")


def known_hosts_name(address: str, port: int) -> str:
    """How known_hosts names a host: ``address``, or ``[address]:port`` off port 22."""
    return address if port == 22 else f"[{address}]:{port}"


def record_key(known_hosts: Path, name: str, key: paramiko.PKey) -> None:
    """Append ``name``'s key to ``known_hosts`` (created readable by its owner only)."""
    known_hosts.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(known_hosts, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    with os.fdopen(fd, "a") as out:
        out.write(f"{name} {key.get_name()} {key.get_base64()}\n")


class KnownHostsPolicy(paramiko.MissingHostKeyPolicy):
    """What paramiko does with a host known_hosts does not list: refuse it with the fix,
    or (trust on first use) record its key and go on."""

    def __init__(self, known_hosts: Path, trust_on_first_use: bool) -> None:
        self.known_hosts = known_hosts
        self.trust_on_first_use = trust_on_first_use

    def missing_host_key(
        self, client: paramiko.SSHClient, hostname: str, key: paramiko.PKey
    ) -> None:
        if not self.trust_on_first_use:
            raise UnknownHostKeyError(
                f"host {hostname}: its key ({key.get_name()} {fingerprint(key)}) is not in "
                f"{self.known_hosts}; check the fingerprint and add it with "
                f"`ssh-keyscan -t {key.get_name()} {_keyscan_target(hostname)} >> "
                f"{self.known_hosts}`, or set trust_on_first_use: true in the inventory"
            )
        record_key(self.known_hosts, hostname, key)
        client.get_host_keys().add(hostname, key.get_name(), key)


def _keyscan_target(hostname: str) -> str:
    if hostname.startswith("[") and "]:" in hostname:
        address, port = hostname[1:].split("]:", 1)
        return f"-p {port} {address}"
    return hostname


def changed_key_error(
    hostname: str, known_hosts: Path, offered: paramiko.PKey, recorded: paramiko.PKey
) -> ChangedHostKeyError:
    return ChangedHostKeyError(
        f"host {hostname}: its key CHANGED: it offers {offered.get_name()} "
        f"{fingerprint(offered)} but {known_hosts} records {recorded.get_name()} "
        f"{fingerprint(recorded)}; possible impersonation, so casslab does not connect. "
        f"If the host was reinstalled, remove the old line (`ssh-keygen -R "
        f"{hostname} -f {known_hosts}`) and connect again"
    )
