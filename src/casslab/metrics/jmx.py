"""JMX sampler: the Cassandra metrics CQL does not expose, for nodes on this machine.

Spawning ``nodetool`` costs a JVM start (1-2 CPU seconds) per call, far too much at 1 Hz.
Instead one small long-lived Java helper (:data:`PROBE_SOURCE`, compiled once into
``~/.cache/casslab/jmxprobe/``) keeps a JMX connection per node and answers line requests
on stdin/stdout. One helper serves every node of a recorder.

Protocol (tab-separated lines): request
``POLL host port excluded_keyspaces pattern attrs [pattern attrs ...]``; answer
``V object_name attribute value`` lines (a map of counts: its sum, then ``attribute/key``
lines of its non-zero counts), or one ``E message`` line, then ``END``. The
MBeans asked for, and what their values mean, are :mod:`casslab.metrics.jmx_mbeans`.
"""

from __future__ import annotations

import logging
import os
import queue
import shutil
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Protocol

from casslab.errors import SetupError
from casslab.host.javac import compiled
from casslab.metrics.jmx_mbeans import (
    FAST_QUERIES,
    SLOW_QUERIES,
    SYSTEM_KEYSPACES,
    JmxValue,
    parse_answer,
    summarize,
)
from casslab.metrics.rates import mean_per_event
from casslab.metrics.source import Sample, SourceUnavailableError

log = logging.getLogger(__name__)

PROBE_CLASS = "CasslabJmxProbe"
PROBE_SOURCE = r"""
import java.io.*;
import java.util.*;
import javax.management.*;
import javax.management.remote.*;

public class CasslabJmxProbe {
    static final Map<String, JMXConnector> CONNS = new HashMap<>();

    static MBeanServerConnection connect(String host, String port) throws IOException {
        String key = host + ":" + port;
        JMXConnector c = CONNS.get(key);
        if (c == null) {
            JMXServiceURL url = new JMXServiceURL(
                "service:jmx:rmi:///jndi/rmi://" + host + ":" + port + "/jmxrmi");
            c = JMXConnectorFactory.connect(url, null);
            CONNS.put(key, c);
        }
        return c.getMBeanServerConnection();
    }

    // MBean names of a pattern, re-listed every REFRESH polls of that node (tables come
    // and go rarely); a name that vanished in between is skipped.
    static final int REFRESH = 10;
    static final Map<String, Set<ObjectName>> NAMES = new HashMap<>();
    static final Map<String, Integer> AGE = new HashMap<>();

    static Set<ObjectName> names(MBeanServerConnection c, String node, ObjectName pattern)
            throws IOException {
        if (!pattern.isPattern()) return Collections.singleton(pattern);
        String key = node + "|" + pattern;
        Integer age = AGE.get(key);
        Set<ObjectName> found = NAMES.get(key);
        if (found == null || age == null || age >= REFRESH) {
            found = c.queryNames(pattern, null);
            NAMES.put(key, found);
            age = 0;
        }
        AGE.put(key, age + 1);
        return found;
    }

    static void drop(String host, String port) {
        String node = host + ":" + port;
        NAMES.keySet().removeIf(k -> k.startsWith(node + "|"));
        AGE.keySet().removeIf(k -> k.startsWith(node + "|"));
        JMXConnector c = CONNS.remove(host + ":" + port);
        if (c != null) {
            try { c.close(); } catch (IOException e) { /* already gone */ }
        }
    }

    // A map of counts (MessagingService DroppedMessages: verb -> count) is sent as its sum,
    // then its non-zero counts one line each (attribute/key).
    static Object total(Object value) {
        if (!(value instanceof Map)) return value;
        long sum = 0;
        for (Object v : ((Map<?, ?>) value).values()) {
            if (v instanceof Number) sum += ((Number) v).longValue();
        }
        return sum;
    }

    public static void main(String[] args) throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, "UTF-8"));
        PrintStream out = new PrintStream(new BufferedOutputStream(System.out), false, "UTF-8");
        String line;
        while ((line = in.readLine()) != null) {
            String[] f = line.split("\t", -1);
            if (f.length < 4 || !f[0].equals("POLL")) {
                out.println("E\tbad request: " + line);
                out.println("END");
                out.flush();
                continue;
            }
            Set<String> excluded = new HashSet<>(Arrays.asList(f[3].split(",")));
            StringBuilder sb = new StringBuilder();
            try {
                MBeanServerConnection c = connect(f[1], f[2]);
                for (int i = 4; i + 1 < f.length; i += 2) {
                    String[] attrs = f[i + 1].split(",");
                    for (ObjectName n : names(c, f[1] + ":" + f[2], new ObjectName(f[i]))) {
                        String ks = n.getKeyProperty("keyspace");
                        if (ks != null && excluded.contains(ks)) continue;
                        AttributeList values;
                        try {
                            values = c.getAttributes(n, attrs);
                        } catch (InstanceNotFoundException e) {
                            continue;
                        }
                        for (Attribute a : values.asList()) {
                            sb.append("V\t").append(n).append('\t').append(a.getName())
                              .append('\t').append(total(a.getValue())).append('\n');
                            if (!(a.getValue() instanceof Map)) continue;
                            // and each key with a count, as attribute/key
                            for (Map.Entry<?, ?> e : ((Map<?, ?>) a.getValue()).entrySet()) {
                                Object v = e.getValue();
                                if (!(v instanceof Number)) continue;
                                if (((Number) v).longValue() == 0) continue;
                                sb.append("V\t").append(n).append('\t').append(a.getName())
                                  .append('/').append(e.getKey()).append('\t').append(v)
                                  .append('\n');
                            }
                        }
                    }
                }
                out.print(sb);
            } catch (Exception e) {
                drop(f[1], f[2]);
                out.println("E\t" + String.valueOf(e).replace('\n', ' ').replace('\t', ' '));
            }
            out.println("END");
            out.flush();
        }
        for (JMXConnector c : CONNS.values()) {
            try { c.close(); } catch (IOException e) { /* exiting */ }
        }
    }
}
"""


def local_java() -> str:
    home = os.environ.get("JAVA_HOME")
    if home and (Path(home) / "bin" / "java").exists():
        return str(Path(home) / "bin" / "java")
    found = shutil.which("java")
    if found is None:
        raise SetupError("starting the JMX metrics helper: no java on PATH; install JDK 11 or 17")
    return found


def compiled_probe(java: str) -> Path:
    """Directory holding the compiled probe class (compiled on first use)."""
    return compiled(PROBE_SOURCE, PROBE_CLASS, "jmxprobe", java)


HELPER_JVM_FLAGS: tuple[str, ...] = (
    "-Xmx48m",
    "-Xss512k",
    "-XX:+UseSerialGC",
    "-XX:TieredStopAtLevel=1",
    "-Xshare:auto",
    "-XX:-UsePerfData",  # no hsperfdata file, and no 20 Hz sampler thread in an idle JVM
    "-Dsun.rmi.transport.connectionTimeout=3000",
    "-Dsun.rmi.transport.tcp.responseTimeout=5000",
)
"""The helper JVM's flags: small, quick to start, cheap to keep."""


class JmxClient:
    """One helper JVM shared by the JMX sources of a recorder. Thread-safe."""

    def __init__(self, timeout_s: float = 10.0, java: str | None = None) -> None:
        self._timeout_s = timeout_s
        self._java = java or local_java()
        self._lock = threading.Lock()
        self._proc: HelperPipe | None = None
        self._answers: queue.Queue[list[str] | None] = queue.Queue()
        self._refs = 0

    @property
    def pid(self) -> int | None:
        """The helper's PID on this machine (None: not running, or on another host)."""
        return None if self._proc is None else self._proc.pid

    def prepare(self) -> None:
        """Compile the helper now (cached across runs); SetupError when no JDK can."""
        compiled_probe(self._java)

    def acquire(self) -> JmxClient:
        with self._lock:
            self._refs += 1
        return self

    def _argv(self) -> list[str]:
        """The helper's command line (here: this machine's java and compiled probe)."""
        classes = compiled_probe(self._java)
        return [self._java, *HELPER_JVM_FLAGS, "-cp", str(classes), PROBE_CLASS]

    def _spawn(self, argv: list[str]) -> HelperPipe:
        """Start the helper: a process on this machine."""
        return ProcessPipe(argv)

    def _start(self) -> HelperPipe:
        proc = self._spawn(self._argv())
        self._answers = queue.Queue()
        answers = self._answers

        def pump() -> None:
            # one hand-over per answer, not per line: a thread switch costs more than a line
            answer: list[str] = []
            try:
                for line in proc.lines():
                    text = line.rstrip("\n")
                    if text == "END":
                        answers.put(answer)
                        answer = []
                    else:
                        answer.append(text)
            except (OSError, EOFError) as error:  # a dropped connection: the helper is gone
                log.debug("JMX helper output ended: %s", error)
            answers.put(None)

        threading.Thread(target=pump, name="casslab-jmx-reader", daemon=True).start()
        return proc

    def poll(
        self, host: str, port: int, queries: tuple[tuple[str, str], ...] = FAST_QUERIES
    ) -> list[JmxValue]:
        """The values of ``queries`` (ObjectName pattern, comma-separated attributes) of the
        node whose JMX listens on host:port; MBeans of system keyspaces are left out."""
        request = "\t".join(
            ["POLL", host, str(port), ",".join(SYSTEM_KEYSPACES)] + [x for q in queries for x in q]
        )
        with self._lock:
            if self._proc is None or not self._proc.running():
                self._proc = self._start()
            proc = self._proc
            try:
                proc.send(request + "\n")
            except OSError as e:
                self._kill()
                raise SourceUnavailableError(f"JMX helper for {host}:{port} died: {e}") from e
            try:
                answer = self._answers.get(timeout=self._timeout_s)
            except queue.Empty:
                self._kill()
                raise SourceUnavailableError(
                    f"JMX poll of {host}:{port} took over {self._timeout_s:.0f} s; "
                    "the helper was restarted"
                ) from None
            if answer is None:
                self._kill()
                raise SourceUnavailableError(f"JMX helper exited while polling {host}:{port}")
        return parse_answer(answer)

    def _kill(self) -> None:
        if self._proc is not None:
            self._proc.kill()
            self._proc = None

    def close(self) -> None:
        """Release one reference; the helper stops when none is left."""
        with self._lock:
            self._refs -= 1
            if self._refs > 0 or self._proc is None:
                return
            proc, self._proc = self._proc, None
        proc.close()


class HelperPipe(Protocol):
    """The helper running somewhere, with its standard input and output open."""

    @property
    def pid(self) -> int | None: ...

    def send(self, text: str) -> None:
        """Write to its input (:class:`OSError` when it is gone)."""
        ...

    def lines(self) -> Iterator[str]:
        """Its output, a line at a time, until it ends."""
        ...

    def running(self) -> bool: ...

    def kill(self) -> None:
        """Stop it now."""
        ...

    def close(self) -> None:
        """Close its input (it exits at that end) and wait a while; stop it if it lingers."""
        ...


class ProcessPipe:
    """The helper as a process on this machine."""

    def __init__(self, argv: list[str]) -> None:
        self._proc = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            bufsize=1,
        )

    @property
    def pid(self) -> int | None:
        return self._proc.pid

    def send(self, text: str) -> None:
        assert self._proc.stdin is not None
        self._proc.stdin.write(text)
        self._proc.stdin.flush()

    def lines(self) -> Iterator[str]:
        assert self._proc.stdout is not None
        return iter(self._proc.stdout)

    def running(self) -> bool:
        return self._proc.poll() is None

    def kill(self) -> None:
        self._proc.kill()
        self._proc.wait(timeout=10)

    def close(self) -> None:
        assert self._proc.stdin is not None
        try:
            self._proc.stdin.close()
            self._proc.wait(timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            self.kill()


WARM_POLLS = 60
"""Polls that bring the helper's hot paths to compiled code (measured: the C1 compiler's
work after them is a tenth of what it is after one poll)."""


class JmxSource:
    """Samples the JMX-only metrics of node ``label`` (JMX on host:port)."""

    def __init__(
        self,
        label: str,
        host: str,
        port: int,
        client: JmxClient,
        *,
        slow_every: int = 10,
        retry_every_s: float = 5.0,
    ) -> None:
        self._label = label
        self._retry_every_s = retry_every_s
        self._failed_at: float | None = None
        self._slow_every = max(1, slow_every)
        self._polls = 0
        self._host = host
        self._port = port
        self._client = client.acquire()
        self._prev: dict[str, float] | None = None

    @property
    def name(self) -> str:
        return "jmx"

    @property
    def node(self) -> str:
        return self._label

    def warm(self, polls: int = WARM_POLLS) -> None:
        """Poll ``polls`` times now and discard the answers: the helper JVM compiles its
        RMI paths (C1, a few ms at a time) here rather than during the first minutes of
        sampling. Stops at the first failure (the next sample records it as a gap)."""
        for i in range(polls):
            queries = FAST_QUERIES + (SLOW_QUERIES if i % self._slow_every == 0 else ())
            try:
                self._client.poll(self._host, self._port, queries)
            except SourceUnavailableError:
                return

    def sample(self, now: float) -> list[Sample]:
        queries = FAST_QUERIES
        if self._polls % self._slow_every == 0:
            queries = FAST_QUERIES + SLOW_QUERIES
        mono = time.monotonic()
        if self._failed_at is not None and mono - self._failed_at < self._retry_every_s:
            raise SourceUnavailableError(
                f"JMX {self._host}:{self._port}: unreachable (retrying every "
                f"{self._retry_every_s:.0f} s)"
            )
        try:
            raw = self._client.poll(self._host, self._port, queries)
        except SourceUnavailableError:
            self._failed_at = mono
            self._prev = None
            raise
        self._failed_at = None
        self._polls += 1
        cur = summarize(raw)
        # Gauges of user tables: no MBean (no table yet) means zero, not unknown.
        cur.setdefault("cassandra.sstables", 0.0)
        cur.setdefault("cassandra.live_disk_bytes", 0.0)
        out = [Sample(now, self._label, k, v) for k, v in cur.items() if not k.startswith("_")]
        prev = self._prev
        if prev is not None:
            for op in ("read", "write"):
                t, n = f"_{op}_total_us", f"_{op}_count"
                if t in cur and n in cur and t in prev and n in prev:
                    mean_us = mean_per_event(prev[t], cur[t], prev[n], cur[n])
                    if mean_us is not None:
                        out.append(
                            Sample(
                                now, self._label, f"cassandra.{op}_latency_mean_ms", mean_us / 1e3
                            )
                        )
        self._prev = cur
        return out

    def close(self) -> None:
        self._client.close()
