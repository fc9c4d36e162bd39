"""Cassandra's memtable row overhead, computed by a node once per install, JDK and heap
layout, then handed to every later node of the same kind as the value it would compute.

Why: as ``SkipListMemtable`` (the default memtable) is first loaded, a node estimates the
heap cost of one memtable row by building and measuring 100,000 rows
(``cassandra.memtable_row_overhead_computation_step``) and logs the result ("Estimated
SkipListMemtable row overhead: 180"). That loop and the JIT work it triggers cost about
3 s of a three-node start on two cores (3 nodes of 5.0.9, 512 MiB heaps: median 21.4 s
without, 18.2 s with, three fresh starts each, ``casslab up --fresh``). Cassandra reads
the same figure from ``-Dcassandra.memtable.row_overhead_size`` when it is set (4.1 on;
``CassandraRelevantProperties.MEMTABLE_OVERHEAD_SIZE``) and then skips the loop.

casslab passes only the number a node of the same Cassandra jars, JDK, heap size, garbage
collector and JVM options computed and logged before: the figure depends on the JVM's
object layout (compressed references, which the heap size and ZGC decide), so each of
those is part of the key. It also varies by a byte between stock starts of one kind (the
rows get random tokens in a skip list of random height: 180 and 181 seen on 5.0.9 with
512 MiB heaps), so a kept figure is one draw of what a stock start computes, and the
memtables account as on one. A version whose jar has no such property never gets it.
``CASSLAB_ROW_OVERHEAD=0`` starts every node computing it itself.
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
import zipfile
from collections.abc import Sequence
from pathlib import Path

from casslab.cluster import class_share
from casslab.paths import cache_root
from casslab.record import Record

ENV = "CASSLAB_ROW_OVERHEAD"
PROPERTY = "cassandra.memtable.row_overhead_size"
_LOGGED = re.compile(r"Estimated SkipListMemtable row overhead: (\d+)")
_PROPERTIES_CLASS = "org/apache/cassandra/config/CassandraRelevantProperties.class"
_CASSANDRA_JARS = ("cassandra-all-*.jar", "apache-cassandra-*.jar")


class RowOverhead(Record):
    """Where the row overhead of one kind of node (install, JDK, heap, collector and JVM
    options) is kept once a node of that kind logged it."""

    file: Path

    def value(self) -> int | None:
        """The figure a node of this kind computed (None: none yet, or unreadable)."""
        try:
            text = self.file.read_text().strip()
        except OSError:
            return None
        return int(text) if text.isdigit() and int(text) > 0 else None


def enabled() -> bool:
    return os.environ.get(ENV, "1").strip().lower() not in {"0", "false", "no", "off"}


def logged(text: str) -> int | None:
    """The row overhead the last start in a node's log ``text`` computed (pure)."""
    found = _LOGGED.findall(text)
    return int(found[-1]) if found else None


def kind_key(install: str, heap_mib: int, gc: str | None, options: Sequence[str]) -> str:
    """The digest of what the figure depends on (pure): the install and JDK
    (:func:`class_share.install_key`), the heap, the collector and the JVM options."""
    parts = [install, str(heap_mib), gc or "G1", *options]
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:16]


@functools.lru_cache(maxsize=16)
def supported(lib_dir: Path) -> bool:
    """Whether the Cassandra jar in ``lib_dir`` reads the property (4.1 and later)."""
    for pattern in _CASSANDRA_JARS:
        for jar in sorted(lib_dir.glob(pattern)):
            try:
                with zipfile.ZipFile(jar) as archive:
                    return PROPERTY.encode() in archive.read(_PROPERTIES_CLASS)
            except (OSError, KeyError, zipfile.BadZipFile):
                continue
    return False


def for_node(
    java: Path, lib_dir: Path, heap_mib: int, gc: str | None, options: Sequence[str]
) -> RowOverhead | None:
    """The place of the figure for a node of this kind; None when off (:data:`ENV`), when
    its Cassandra has no such property, or the JDK's library is not found."""
    if not enabled() or not supported(lib_dir):
        return None
    install = class_share.install_key(java, lib_dir)
    if install is None:
        return None
    key = kind_key(install, heap_mib, gc, options)
    return RowOverhead(file=cache_root() / "row-overhead" / f"{key}.txt")


def jvm_flags(place: RowOverhead | None) -> list[str]:
    """The property with the figure when one is known, else nothing (the node computes it)."""
    value = place.value() if place is not None else None
    return [] if value is None else [f"-D{PROPERTY}={value}"]


def learn(place: RowOverhead | None, log_file: Path) -> int | None:
    """Keep the figure the node writing ``log_file`` computed, if none is kept yet; the
    figure kept (None: nothing to learn)."""
    if place is None or place.value() is not None:
        return None
    try:
        value = logged(log_file.read_text(errors="replace"))
    except OSError:
        return None
    if value is None:
        return None
    partial = place.file.with_name(f".{place.file.name}.{os.getpid()}")
    try:  # a cache that cannot be written costs the next start its speed, nothing else
        place.file.parent.mkdir(parents=True, exist_ok=True)
        partial.write_text(f"{value}\n")
        os.replace(partial, place.file)
    except OSError:
        return None
    return value
