"""Class-data sharing for Cassandra nodes: the classes a node loads while it starts,
parsed and verified once into an archive that every later node of the same Cassandra
install and JDK maps instead of loading them again (the JDK's application class-data
sharing, ``-XX:SharedArchiveFile``).

Why: a node spends most of its start-up loading and verifying about 10,000 classes, and
three nodes starting together on two cores queue for the CPU. Measured here (5.0.9, JDK
17, 512 MiB heap, ``bench/cluster_startup.py``): one node ready in 12-13 s without the
archive and 5.5-6 s with it. The archive changes how classes are loaded, not which classes
or what they do: the same jars and bytecode run, and the JIT compiles them as before.
``CASSLAB_CLASS_SHARING=0`` starts nodes without it (a stock JVM start).

nodetool gets an archive of its own in the same way (1.7 s a call without it, 1.1 s with
it): casslab and its tests run nodetool often (flushes, snapshots, the ring's status).

How: the first node (or nodetool run) of an install and JDK that has no archive yet writes
the list of classes it loads (``-XX:DumpLoadedClassList``); once its cluster is ready (or
the nodetool run ended), that list is archived (``java -Xshare:dump``: about 10 s for the
node's, 3 s for nodetool's, once, under a file lock so that two casslab processes do not
both build it). The archives live in ``~/.cache/casslab/class-share/<key>/``, the key a
digest of the JDK (its ``libjvm.so``) and of the jars (names and sizes): a new JDK or
other jars make new archives. A JVM that cannot use an archive (another heap layout)
starts without it, as the JDK does by default.
"""

from __future__ import annotations

import fcntl
import hashlib
import logging
import os
import subprocess
from collections.abc import Sequence
from pathlib import Path

from casslab.paths import cache_root
from casslab.record import Record

log = logging.getLogger(__name__)

ENV = "CASSLAB_CLASS_SHARING"
DAEMON = "cassandra"  # the archive of the nodes' JVMs
NODETOOL = "nodetool"  # the archive of nodetool's
NODE_CLASS_LIST = "loaded-classes.lst"  # in a node's logs directory, while it is dumped
MIN_JAVA_FEATURE = 11  # application class-data sharing is in OpenJDK from 10 on
BUILD_TIMEOUT_S = 300.0


class ClassShare(Record):
    """Where the archive of one program (``role``: the node or nodetool) of one Cassandra
    install and JDK lives."""

    directory: Path
    role: str = DAEMON

    @property
    def archive(self) -> Path:
        return self.directory / f"{self.role}.jsa"

    @property
    def class_list(self) -> Path:
        return self.directory / f"{self.role}.lst"

    @property
    def lock_file(self) -> Path:
        return self.directory / "lock"


def enabled() -> bool:
    return os.environ.get(ENV, "1").strip().lower() not in {"0", "false", "no", "off"}


def _jvm_library(java: Path) -> Path | None:
    home = Path(os.path.realpath(java)).parent.parent
    for candidate in (
        home / "lib" / "server" / "libjvm.so",
        home / "jre/lib/amd64/server/libjvm.so",
    ):
        if candidate.is_file():
            return candidate
    return None


def install_key(java: Path, lib_dir: Path) -> str | None:
    """A digest of what an archive depends on: the JVM's library (path, size, time) and
    the jars of ``lib_dir`` (names and sizes). None when the JVM's library is not found."""
    library = _jvm_library(java)
    if library is None:
        return None
    parts = [str(library), str(library.stat().st_size), str(library.stat().st_mtime_ns)]
    parts.append(str(lib_dir.resolve()))
    for jar in sorted(lib_dir.glob("*.jar")):
        parts += [jar.name, str(jar.stat().st_size)]
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:16]


BOOT_INSTRUMENTING = ("-XX:StartFlightRecording", "-XX:+FlightRecorder", "-javaagent:", "-agent")
"""JVM options that set up class-file hooks as the JVM starts (Flight Recorder, agents). A
node that maps the archive with one of them crashed here in its first seconds (JDK 17.0.15:
SIGSEGV in ``KlassFactory::check_shared_class_file_load_hook``), so such nodes start
without the archive."""


def hooked_option(options: Sequence[str]) -> str | None:
    """The first of ``options`` that hooks class loading at the JVM's start (None: none):
    a node with it starts without the archive."""
    return next((o for o in options if o.startswith(BOOT_INSTRUMENTING)), None)


def for_install(
    java: Path, java_feature: int, lib_dir: Path, role: str = DAEMON
) -> ClassShare | None:
    """The archive place of ``role`` for this install and JDK; None when sharing is off
    (:data:`ENV`), the JDK is older than :data:`MIN_JAVA_FEATURE`, or its JVM library is
    not where a JDK keeps it."""
    if not enabled() or java_feature < MIN_JAVA_FEATURE:
        return None
    key = install_key(java, lib_dir)
    if key is None:
        return None
    return ClassShare(directory=cache_root() / "class-share" / key, role=role)


def node_flags(share: ClassShare | None, logs_dir: Path) -> list[str]:
    """The JVM flags of a node: map the archive when it exists, else write the list of
    classes the node loads into its logs directory (for :func:`build_after_start`)."""
    return jvm_flags(share, logs_dir / NODE_CLASS_LIST)


def jvm_flags(share: ClassShare | None, class_list: Path) -> list[str]:
    """Map the archive when it exists, else write the classes loaded into ``class_list``."""
    if share is None:
        return []
    if share.archive.is_file():
        return [f"-XX:SharedArchiveFile={share.archive}", "-Xshare:auto"]
    return [f"-XX:DumpLoadedClassList={class_list}"]


def dump_command(
    java: Path, share: ClassShare, classpath: str, module_flags: Sequence[str], output: Path
) -> list[str]:
    """``java -Xshare:dump`` of the class list into ``output`` (pure)."""
    return [
        str(java),
        "-Xshare:dump",
        f"-XX:SharedClassListFile={share.class_list}",
        f"-XX:SharedArchiveFile={output}",
        *module_flags,
        "-cp",
        classpath,
    ]


def complete_lines(text: str) -> str:
    """The whole lines of a class list a running JVM is still writing (pure)."""
    end = text.rfind("\n")
    return text[: end + 1] if end >= 0 else ""


def build_after_start(
    share: ClassShare | None,
    java: Path,
    classpath: str,
    module_flags: Sequence[str],
    logs_dirs: Sequence[Path],
) -> bool:
    """Archive the class list a node of a ready cluster wrote, if there is no archive yet;
    True when an archive was built. A failed build is logged and leaves no archive (the
    nodes then start as without one)."""
    lists = [d / NODE_CLASS_LIST for d in logs_dirs]
    return build(share, java, classpath, module_flags, lists)


def build(
    share: ClassShare | None,
    java: Path,
    classpath: str,
    module_flags: Sequence[str],
    class_lists: Sequence[Path],
) -> bool:
    """Archive the first of ``class_lists`` that exists, if ``share`` has no archive yet;
    True when one was built. The lists are deleted once it is."""
    if share is None or share.archive.is_file():
        return False
    dumped = [path for path in class_lists if path.is_file()]
    if not dumped:
        return False
    share.directory.mkdir(parents=True, exist_ok=True)
    with share.lock_file.open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if share.archive.is_file():  # another casslab process built it meanwhile
            return False
        share.class_list.write_text(complete_lines(dumped[0].read_text(errors="replace")))
        partial = share.directory / f".{share.archive.name}.{os.getpid()}"
        command = dump_command(java, share, classpath, module_flags, partial)
        try:
            result = subprocess.run(
                command, capture_output=True, text=True, timeout=BUILD_TIMEOUT_S, check=False
            )
        except (OSError, subprocess.TimeoutExpired) as error:
            log.warning("class-data sharing archive not built: %s", error)
            partial.unlink(missing_ok=True)
            return False
        if result.returncode != 0 or not partial.is_file():
            said = (result.stderr or result.stdout).strip().splitlines()[-3:]
            log.warning("class-data sharing archive not built: %s", " / ".join(said))
            partial.unlink(missing_ok=True)
            return False
        os.replace(partial, share.archive)
    for path in dumped:
        path.unlink(missing_ok=True)  # the JVM writes on into its open file, unseen
    return True
