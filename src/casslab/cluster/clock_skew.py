"""Each node's clock: an offset and a drift injected into Cassandra's own notion of time.

Cassandra 4.1 and later take their wall clock from a pluggable class named by the system
property ``cassandra.clock`` (interface ``org.apache.cassandra.utils.Clock``): server-side
write timestamps, ``now()``, message creation times and expiry all read it. casslab's
class, :data:`CLOCK_SOURCE` (compiled once against the node's own jar), adds to the system
clock the skew that the node's clock file says, and reads that file again every 100 ms,
so ``casslab clock set 2 -500ms`` and ``casslab clock drift 2 +50ppm`` change a running
node. ``nanoTime`` is left alone: Cassandra measures intervals with it, and a real node's
monotonic clock does not jump when its wall clock is stepped.

The file (``node<n>/conf/clock``) holds one line ``OFFSET_MS DRIFT_PPM SINCE_MS``: the skew
is ``OFFSET_MS + (now - SINCE_MS) x DRIFT_PPM / 10^6`` ms at host time ``now`` (ms since
the epoch), so a drift accumulates from the moment it was set and a change continues
from the skew reached, without a jump. (libfaketime, the other way, is known to hang JDK
17 programs; it was not tried.)
"""

from __future__ import annotations

import os
import re
import time
import zipfile
from collections.abc import Mapping
from pathlib import Path

from pydantic import Field

from casslab.cluster.distribution import Distribution
from casslab.cluster.model import ClusterState, Node
from casslab.errors import ConfigError
from casslab.host.javac import compiled
from casslab.record import Record
from casslab.units import offset_ms

CLOCK_CLASS = "casslab.SkewedClock"
CLOCK_INTERFACE = "org/apache/cassandra/utils/Clock$Global.class"  # 4.1 and later
_DRIFT_RE = re.compile(r"^([+-]?\d+(?:\.\d+)?)ppm$")
MAX_OFFSET_MS = 24 * 3600 * 1000.0  # a day: beyond it, a typo
MAX_DRIFT_PPM = 100_000.0  # 10%

CLOCK_SOURCE = """package casslab;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

/** casslab's wall clock for a Cassandra node: the system clock plus the skew its clock
 *  file says (OFFSET_MS DRIFT_PPM SINCE_MS), read again every 100 ms. */
public final class SkewedClock implements org.apache.cassandra.utils.Clock {
    private static final class Skew {
        final double offsetMs, driftPpm;
        final long sinceMs;
        Skew(double offsetMs, double driftPpm, long sinceMs) {
            this.offsetMs = offsetMs; this.driftPpm = driftPpm; this.sinceMs = sinceMs;
        }
        long at(long nowMs) {
            return Math.round(offsetMs + (nowMs - sinceMs) * driftPpm / 1e6);
        }
    }

    private final Path file;
    private volatile Skew skew = new Skew(0, 0, 0);
    private String seen = "";

    public SkewedClock() {
        String path = System.getProperty("casslab.clock.file");
        file = path == null ? null : Paths.get(path);
        if (file != null) {
            reload();
            Thread poller = new Thread(this::poll, "casslab-clock");
            poller.setDaemon(true);
            poller.start();
        }
    }

    private void poll() {
        while (true) {
            try { Thread.sleep(100); } catch (InterruptedException e) { return; }
            reload();
        }
    }

    private void reload() {
        try {
            if (!Files.exists(file)) return;
            String text = new String(Files.readAllBytes(file), StandardCharsets.UTF_8).trim();
            if (text.equals(seen)) return;
            String[] parts = text.split("\\\\s+");
            skew = new Skew(Double.parseDouble(parts[0]), Double.parseDouble(parts[1]),
                            Long.parseLong(parts[2]));
            seen = text;
            System.err.println("casslab clock: skew now " + text);
        } catch (Exception e) {
            System.err.println("casslab clock: cannot read " + file + ": " + e);
        }
    }

    @Override
    public long nanoTime() {
        return System.nanoTime();
    }

    @Override
    public long currentTimeMillis() {
        long now = System.currentTimeMillis();
        return now + skew.at(now);
    }
}
"""


class ClockSkew(Record):
    """A node's skew: ``offset_ms`` at host time ``since_ms``, drifting ``drift_ppm``."""

    offset_ms: float = Field(default=0.0, ge=-MAX_OFFSET_MS, le=MAX_OFFSET_MS)
    drift_ppm: float = Field(default=0.0, ge=-MAX_DRIFT_PPM, le=MAX_DRIFT_PPM)
    since_ms: int = 0

    def at(self, now_ms: float) -> float:
        """The skew in ms at host time ``now_ms``."""
        return self.offset_ms + (now_ms - self.since_ms) * self.drift_ppm / 1e6

    def line(self) -> str:
        return f"{self.offset_ms:g} {self.drift_ppm:g} {self.since_ms}\n"


def parse_offset(text: str) -> float:
    """``-500ms``, ``+1.5s`` -> ms; a :class:`ConfigError` otherwise."""
    value = offset_ms(text)
    if value is None:
        raise ConfigError(
            f"clock offset {text!r}: give a number with its unit, e.g. -500ms or +1.5s"
        )
    if abs(value) > MAX_OFFSET_MS:
        raise ConfigError(f"clock offset {text!r}: more than a day; give e.g. -500ms")
    return value


def parse_drift(text: str) -> float:
    """``+50ppm`` -> 50.0 (parts per million: the clock gains 50 µs a second)."""
    match = _DRIFT_RE.match(text.strip())
    if match is None or abs(float(match.group(1))) > MAX_DRIFT_PPM:
        raise ConfigError(
            f"clock drift {text!r}: give parts per million with the unit, e.g. +50ppm or "
            f"-20ppm (at most {MAX_DRIFT_PPM:g})"
        )
    return float(match.group(1))


def check_nodes(offsets: Mapping[int, float], numbers: list[int]) -> None:
    """Every node ``offsets`` names is one of ``numbers``, or a :class:`ConfigError`."""
    wrong = sorted(n for n in offsets if n not in numbers)
    if wrong:
        raise ConfigError(
            f"--clock: node(s) {', '.join(map(str, wrong))} do not exist; the cluster has "
            f"nodes {min(numbers)}..{max(numbers)} (nothing was started)"
        )


def check_request(
    offsets: Mapping[int, float], nodes: int, dist: Distribution, injectable: bool
) -> None:
    """Offsets asked of a new cluster of ``nodes`` nodes name its nodes, and its Cassandra
    has the clock when offsets or the ``injectable`` clock are asked for."""
    if offsets:
        check_nodes(offsets, list(range(1, nodes + 1)))
    if (offsets or injectable) and not supports_clock(dist.lib_dir):
        raise unsupported(dist.version)


def with_injectable_clock(state: ClusterState) -> ClusterState:
    """The state of a stopped cluster whose nodes start with casslab's clock from now on
    (``casslab up --injectable-clock`` of a stored cluster)."""
    if not supports_clock(state.lib_dir):
        raise unsupported(state.cassandra_version)
    spec = state.spec.model_copy(update={"injectable_clock": True})
    return state.model_copy(update={"spec": spec})


def clock_file(node: Node) -> Path:
    return node.conf_dir / "clock"


def now_ms() -> int:
    return int(time.time() * 1000)


def read_skew(node: Node) -> ClockSkew:
    """The node's skew as its clock file says (none: no skew)."""
    try:
        offset, drift, since = clock_file(node).read_text().split()
        return ClockSkew(offset_ms=float(offset), drift_ppm=float(drift), since_ms=int(since))
    except (OSError, ValueError):
        return ClockSkew()


def write_skew(node: Node, skew: ClockSkew) -> None:
    """Write the node's clock file atomically (its clock reads it within 100 ms)."""
    path = clock_file(node)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(".clock.tmp")
    tmp.write_text(skew.line())
    os.replace(tmp, path)


def set_offset(node: Node, offset_ms: float) -> ClockSkew:
    """Step the node's clock to ``offset_ms`` now, keeping its drift."""
    skew = read_skew(node).model_copy(update={"offset_ms": offset_ms, "since_ms": now_ms()})
    write_skew(node, skew)
    return skew


def set_drift(node: Node, drift_ppm: float) -> ClockSkew:
    """Let the node's clock drift ``drift_ppm`` from now on, from the skew it has now."""
    now = now_ms()
    current = read_skew(node)
    skew = ClockSkew(offset_ms=round(current.at(now), 3), drift_ppm=drift_ppm, since_ms=now)
    write_skew(node, skew)
    return skew


def supports_clock(lib_dir: Path) -> bool:
    """The distribution in ``lib_dir`` has the pluggable clock (Cassandra 4.1 and later)."""
    return cassandra_jar(lib_dir) is not None


def cassandra_jar(lib_dir: Path) -> Path | None:
    """The jar of ``lib_dir`` that holds Cassandra's pluggable clock interface."""
    for jar in sorted(lib_dir.glob("*cassandra*.jar")):
        try:
            with zipfile.ZipFile(jar) as archive:
                if CLOCK_INTERFACE in archive.namelist():
                    return jar
        except (OSError, zipfile.BadZipFile):
            continue
    return None


def clock_classes(java: Path, lib_dir: Path) -> Path | None:
    """The directory of casslab's clock class compiled against this distribution (None
    when it has no pluggable clock)."""
    jar = cassandra_jar(lib_dir)
    if jar is None:
        return None
    return compiled(
        CLOCK_SOURCE, "SkewedClock", "clock", str(java), classpath=[jar], package="casslab"
    )


EPOCH_SAMPLING_MS = 1000
"""How often a node re-samples its wall clock against its monotonic one (Cassandra's
``cassandra.NANOTIMETOMILLIS_TIMESTAMP_UPDATE_INTERVAL``, 10 s by default). Internode
messages carry their creation time through that sample, so a skew set at run time reaches
the ages that decide whether a message expired only after the next sample."""

SETTLE_S = (EPOCH_SAMPLING_MS + 200) / 1000
"""How long after a clock file changes until every use of the node's clock sees it: write
timestamps and now() within 100 ms (the file is polled), internode message ages after the
next epoch sample."""


def jvm_flags(node: Node) -> list[str]:
    return [
        f"-Dcassandra.clock={CLOCK_CLASS}",
        f"-Dcasslab.clock.file={clock_file(node)}",
        f"-Dcassandra.NANOTIMETOMILLIS_TIMESTAMP_UPDATE_INTERVAL={EPOCH_SAMPLING_MS}",
    ]


def require_injectable(cluster: ClusterState) -> None:
    """The cluster's nodes run casslab's clock (they were started with it), or a
    :class:`ConfigError` saying how to start them with it: nodes run Cassandra's own clock
    unless a skew, a clock jump or ``--injectable-clock`` asked for casslab's."""
    if not supports_clock(cluster.lib_dir):
        raise unsupported(cluster.cassandra_version)
    if not cluster.spec.injectable_clock:
        name = cluster.spec.name
        raise ConfigError(
            f"cluster {name!r} runs Cassandra's own clock (stock nodes), so casslab cannot "
            f"skew it; restart it with casslab's injectable clock, its data kept: "
            f"`casslab down --name {name}` then `casslab up --name {name} --injectable-clock`"
        )


def unsupported(version: str) -> ConfigError:
    return ConfigError(
        f"Cassandra {version} has no pluggable clock (org.apache.cassandra.utils.Clock, "
        "Cassandra 4.1 and later): clock skew cannot be injected; use 4.1 or later"
    )
