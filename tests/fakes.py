"""A fake cluster and a fake load engine for unit tests of the trial runner's logic.

The fake cluster satisfies :class:`casslab.cluster.Cluster` and records what the runner asks
of it; the fake engine is a real executable (set through ``CASSLAB_ENGINE``, the engine
override every casslab user has) that answers ``--check`` and writes the records a real
engine writes, so the runner's whole I/O path runs. Neither stands in for Cassandra in a
test of Cassandra: integration tests start real nodes.
"""

from __future__ import annotations

import json
import stat
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import Any, Self

from casslab.cluster import ClusterSpec, ClusterState, Node, NodeStatus, NodeView, ResetMode
from casslab.cluster.capabilities import NO_LINKS, Capabilities, Capability
from casslab.cluster.local.node_capabilities import LocalClock, LocalProcesses


@dataclass
class FakeSession:
    statements: list[str]
    answers: Mapping[str, list[Any]] = field(default_factory=dict)

    def execute(self, statement: str, *args: Any, **kwargs: Any) -> list[Any]:
        """No rows, or those of the first of :attr:`answers` whose key is in ``statement``."""
        self.statements.append(statement)
        return next((rows for key, rows in self.answers.items() if key in statement), [])


@dataclass
class Calls:
    """Everything the runner asked of the fake clusters, in order, across all of them."""

    log: list[tuple[str, Any]] = field(default_factory=list)
    statements: list[str] = field(default_factory=list)
    answers: dict[str, list[Any]] = field(default_factory=dict)  # rows the sessions return
    fail_restart_with: BaseException | None = None

    def names(self) -> list[str]:
        return [name for name, _ in self.log]


class FakeCluster:
    """A cluster that runs no node: it records each call in :class:`Calls`."""

    def __init__(self, spec: ClusterSpec, root: Path, calls: Calls) -> None:
        directory = root / spec.name
        self.state = ClusterState(
            spec=spec,
            cassandra_version=spec.version or "5.0.9",
            lib_dir=root / "lib",
            java=Path(sys.executable),
            java_feature=17,
            heap=spec.heap or "512M",
            directory=directory,
            nodes=[
                Node(
                    number=n,
                    address=spec.address(n),
                    native_port=spec.native_port,
                    storage_port=spec.storage_port,
                    jmx_port=spec.jmx_port_base + n,
                    directory=directory / f"node{n}",
                )
                for n in range(1, spec.nodes + 1)
            ],
            settings=dict(spec.settings),
            created_at=datetime.now(UTC),
        )
        self.calls = calls
        calls.log.append(("create", (spec.nodes, dict(spec.settings))))

    @property
    def name(self) -> str:
        return self.state.spec.name

    @property
    def nodes(self) -> list[Node]:
        return list(self.state.nodes)

    @property
    def contact_points(self) -> list[str]:
        return [n.contact_point for n in self.state.nodes]

    @property
    def datacenters(self) -> list[str]:
        return ["datacenter1"]

    @property
    def directory(self) -> Path:
        return self.state.directory

    def node(self, number: int) -> Node:
        return self.state.nodes[number - 1]

    def start(self, timeout_s: float = 240.0) -> None:
        self.calls.log.append(("start", None))

    def restart(self, settings: Mapping[str, Any] | None = None, timeout_s: float = 240.0) -> None:
        self.calls.log.append(("restart", dict(settings or {})))
        if self.calls.fail_restart_with is not None:
            raise self.calls.fail_restart_with
        self.state = self.state.model_copy(update={"settings": dict(settings or {})})

    def reset(
        self, mode: ResetMode = ResetMode.DROP, tables: Sequence[str] | None = None
    ) -> list[str]:
        named = () if tables is None else (list(tables),)
        self.calls.log.append(("reset", (ResetMode(mode), *named) if named else ResetMode(mode)))
        return []

    def wipe(self, timeout_s: float = 240.0) -> None:
        self.calls.log.append(("wipe", None))

    def stop(self, deadline_s: float = 30.0) -> list[int]:
        self.calls.log.append(("stop", None))
        return []

    def destroy(self) -> None:
        self.calls.log.append(("destroy", None))

    def status(self) -> list[NodeView]:
        return [
            NodeView(
                number=n.number,
                address=n.address,
                native_port=n.native_port,
                jmx_port=n.jmx_port,
                pid=None,
                status=NodeStatus.UP,
            )
            for n in self.state.nodes
        ]

    def nodetool(self, number: int, *args: str, timeout_s: float = 120.0) -> str:
        self.calls.log.append(("nodetool", args))
        return ""

    def capture(self, name: str, keyspace: str) -> None:
        self.calls.log.append(("capture", name))

    def restore(self, name: str, keyspace: str) -> None:
        self.calls.log.append(("restore", name))

    def session(self, keyspace: str | None = None, node: int | None = None) -> Any:
        return FakeSession(self.calls.statements, self.calls.answers)

    def close_sessions(self) -> None:
        pass

    def capabilities(self) -> Capabilities:
        """Those of local nodes: processes signalled by PID (a fake node has none, so a
        signal finds it not running) and clocks skewed through their clock files."""
        return Capabilities(
            processes=LocalProcesses(self),
            clock=LocalClock(self),
            missing={Capability.CUT_LINKS: NO_LINKS},
        )

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()


class FakeBackend:
    """A backend class for the registry (``BACKENDS[kind]``): ``casslab run`` in a test
    makes fake clusters through it, recording into :attr:`calls`."""

    calls = Calls()

    @classmethod
    def create(cls, spec: ClusterSpec, root: Path | None = None, **_: Any) -> FakeCluster:
        return FakeCluster(spec, root or Path("/nonexistent"), cls.calls)


def fake_factory(calls: Calls) -> Any:
    """A ``create_cluster`` for :class:`casslab.experiment.run.runner.Runner`."""

    def create(spec: ClusterSpec, root: Path | None, *, fresh: bool) -> FakeCluster:
        assert fresh, "the runner always asks for a fresh cluster of its own"
        return FakeCluster(spec, root or Path("/nonexistent"), calls)

    return create


_ENGINE = r'''#!{python}
"""A fake casslab-engine: answers --check, writes interval and summary records."""
import json, os, sys, time

args = sys.argv[1:]
spec = json.load(open(args[args.index("--spec") + 1]))
text = json.dumps(spec)
reject = os.environ.get("FAKE_ENGINE_REJECT")
if reject and reject in text:
    print(json.dumps({{"type": "error", "message": "fake rejection: " + reject, "fatal": True}}))
    sys.exit(2)
if "--check" in args:
    sys.exit(0)
# where it ran: its CPUs and its cpuset cgroup (--engine-cpus)
status = dict(line.split(":", 1) for line in open("/proc/self/status") if ":" in line)
groups = [line.strip().split(":", 2) for line in open("/proc/self/cgroup")]
cpuset = next((g[2] for g in groups if "cpuset" in g[1].split(",")), None)  # v1
cpuset = cpuset or next((g[2] for g in groups if g[0] == "0"), None)  # v2: the one tree
with open(os.environ["FAKE_ENGINE_LOG"], "a") as log:
    log.write(json.dumps({{"seed": spec["seed"], "data_seed": spec.get("data_seed", 0),
                          "ops": len(spec["operations"]),
                          "cpus": status["Cpus_allowed_list"].strip(),
                          "cpuset": cpuset}}) + "\n")
if str(spec["seed"]) in os.environ.get("FAKE_ENGINE_FAIL_SEEDS", "").split(","):
    print(json.dumps({{"type": "error", "message": "fake failure", "fatal": True}}))
    sys.exit(1)
lat = {{"count": 100, "mean_ms": 1.0, "p50_ms": 1.0, "p95_ms": 2.0, "p99_ms": 3.0,
        "p999_ms": 4.0, "max_ms": 5.0}}
# FAKE_ENGINE_SPREAD: the op rate varies with the seed (iteration) by up to that much
rate = 100.0 + float(os.environ.get("FAKE_ENGINE_SPREAD", "0")) * (spec["seed"] % 3)
stats = {{"count": int(rate), "errors": 0, "op_rate": rate, "response": lat, "service": lat}}
for second in range(2):
    time.sleep(float(os.environ.get("FAKE_ENGINE_INTERVAL_S", "0")))  # each a while
    print(json.dumps({{"type": "interval", "phase": "measure", "t_start_s": second,
                      "t_end_s": second + 1, "threads": 4, "total": stats,
                      "ops": {{"write": stats}}}}), flush=True)
print(json.dumps({{"type": "summary", "duration_s": 2.0, "total": stats,
                  "ops": {{"write": stats}}, "engine_version": "fake"}}), flush=True)
'''


def install_fake_engine(directory: Path, monkeypatch: Any) -> Path:
    """Write the fake engine into ``directory`` and point ``CASSLAB_ENGINE`` at it; returns
    the log file where it notes each run (seeds, operation count, the CPUs it may run on
    and its cpuset cgroup: one JSON line each)."""
    binary = directory / "fake-engine"
    binary.write_text(_ENGINE.format(python=sys.executable))
    binary.chmod(binary.stat().st_mode | stat.S_IXUSR)
    log = directory / "engine-runs.jsonl"
    monkeypatch.setenv("CASSLAB_ENGINE", str(binary))
    monkeypatch.setenv("FAKE_ENGINE_LOG", str(log))
    return log


def engine_runs(log: Path) -> list[dict[str, Any]]:
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text().splitlines() if line.strip()]


__all__ = [
    "Calls",
    "FakeBackend",
    "FakeCluster",
    "engine_runs",
    "fake_factory",
    "install_fake_engine",
]
