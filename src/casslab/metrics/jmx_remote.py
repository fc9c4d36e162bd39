"""JMX metrics of nodes on another host (the ssh backend), whose JMX listens on that host's
loopback only: the same small helper as for local nodes (:mod:`casslab.metrics.jmx`), run
on the host over one SSH channel, polling ``127.0.0.1:<jmx port>`` there.

The helper's compiled classes (Java 11 bytecode, compiled here once) are put in
``<base_dir>/jmxprobe/<digest>/`` on the host, each checked by SHA-256 and copied only when
missing; the host's own Java (the one its node runs on) runs them. Closing the channel
closes the helper's input, and the helper exits at that end; a dropped connection does the
same (sshd closes the pipes). Nothing else is installed or left running.
"""

from __future__ import annotations

import hashlib
import logging
import threading
from collections.abc import Iterator
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Protocol

from paramiko import SSHException

from casslab.metrics.jmx import HELPER_JVM_FLAGS, PROBE_CLASS, JmxClient, compiled_probe, local_java

if TYPE_CHECKING:
    from casslab.remote.ssh import RemoteHost

log = logging.getLogger(__name__)

PROBE_DIR = "jmxprobe"
CLOSE_WAIT_S = 5.0  # for the helper to exit after its input closed


class Channel(Protocol):
    """What :class:`ChannelPipe` uses of a paramiko ``Channel``."""

    def sendall(self, s: bytes) -> None: ...
    def makefile(self, mode: str) -> Iterator[str]: ...
    def exit_status_ready(self) -> bool: ...
    def shutdown_write(self) -> None: ...
    def close(self) -> None: ...

    @property
    def status_event(self) -> threading.Event: ...


class ChannelPipe:
    """The helper running on a host, over an SSH channel."""

    def __init__(self, channel: Channel) -> None:
        self._channel = channel
        self._out = channel.makefile("r")

    @property
    def pid(self) -> int | None:
        return None  # not a process of this machine

    def send(self, text: str) -> None:
        self._channel.sendall(text.encode())

    def lines(self) -> Iterator[str]:
        return iter(self._out)

    def running(self) -> bool:
        return not self._channel.exit_status_ready()

    def kill(self) -> None:
        self._channel.close()

    def close(self) -> None:
        try:
            self._channel.shutdown_write()  # end of its input: the helper exits
            self._channel.status_event.wait(CLOSE_WAIT_S)  # and has, when this returns
        except (OSError, EOFError, SSHException) as error:  # the connection went first
            log.debug("closing the JMX helper's input: %s", error)
        self._channel.close()


def probe_files(classes: Path) -> list[tuple[Path, str]]:
    """The compiled helper's files and the relative POSIX path of each."""
    return sorted(
        (path, path.relative_to(classes).as_posix())
        for path in classes.rglob("*.class")
        if path.is_file()
    )


def probe_digest(files: list[tuple[Path, str]]) -> str:
    """One digest of the helper's files and names: its folder on the host."""
    digest = hashlib.sha256()
    for path, name in files:
        digest.update(name.encode() + b"\0" + hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()[:16]


class RemoteJmxClient(JmxClient):
    """A :class:`JmxClient` whose helper runs on ``host`` with the host's ``java``, its
    classes under ``base_dir`` there. Polls name the node as the host sees it
    (``127.0.0.1``)."""

    def __init__(self, host: RemoteHost, java: str, base_dir: str, timeout_s: float = 10.0) -> None:
        super().__init__(timeout_s=timeout_s, java=java)
        self._host = host
        self._base_dir = base_dir
        self._local_java = local_java()  # compiles the classes here
        self._classes: str | None = None

    def prepare(self) -> None:
        """Compile the helper here and put it on the host when it is not there yet
        (:class:`~casslab.errors.SetupError` without a JDK here, a
        :class:`~casslab.errors.RemoteError` when the host cannot take it)."""
        self._install()

    def _install(self) -> str:
        if self._classes is not None:
            return self._classes
        classes = compiled_probe(self._local_java)
        files = probe_files(classes)
        folder = PurePosixPath(self._base_dir, PROBE_DIR, probe_digest(files))
        for path, name in files:
            target = str(folder / name)
            if self._host.sha256(target) != hashlib.sha256(path.read_bytes()).hexdigest():
                self._host.run(["mkdir", "-p", "--", str(PurePosixPath(target).parent)])
                self._host.put(path, target)
        self._classes = str(folder)
        return self._classes

    def _argv(self) -> list[str]:
        return [self._java, *HELPER_JVM_FLAGS, "-cp", self._install(), PROBE_CLASS]

    def _spawn(self, argv: list[str]) -> ChannelPipe:
        return ChannelPipe(self._host.open_channel(argv))
