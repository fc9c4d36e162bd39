"""The experiment file as typed records, and the small pure parsers its fields need.

An experiment file (YAML) says which cluster to run, which factors to vary over which
levels, how to load and measure each trial, and which KPIs to report. The shape::

    name: quick-compaction
    cluster: {nodes: 1, version: 5.0.9, heap: 1G, config: {auto_snapshot: false}}
                                               # + isolation: netns, node_size: t2.small, ...
                                               # + topology: far-apart (datacenters, links)
    schema: {keyspace: keyspace1, replication: {class: SimpleStrategy, replication_factor: 1}}
    client_dc: utah                            # the datacenter the load engine runs against
    table: {compaction: {class: SizeTieredCompactionStrategy, min_threshold: 4}}
    factors:                                   # ordered: the order of cell ids and reports
      table.compaction: [STCS, LCS, UCS]
      config.memtable_flush_writers+memtable_cleanup_threshold: [[8, 0.11], [6, 0.14]]
    design: factorial                          # factorial | ofat
    baseline: {table.compaction: STCS}         # default: the first level of every factor
    extra_cells: []                            # more cells, e.g. the tuned combination
    preload: "write n=50000 cl=ONE -rate threads=16"
    warmup: 5s
    workload: "mixed ratio(write=9,read=1)"    # when the workload is not a factor
    measure: "duration=30s cl=ONE -pop dist=UNIFORM(1..50000) -rate threads=16"
    iterations: 3                              # or {min: 3, max: 20, until: {kpis: [op_rate],
                                               #     ci_half_width_pct: 3}}
    order: {kind: randomized, seed: 1}         # or just: randomized | sequential
    data_seed: 0                               # values written and validated: fixed per run
    reset: recreate                            # truncate | recreate | restart
    kpis: [op_rate, latency_p99_ms]
    clients: 2                                 # load engines (or an inventory's clients:)
    faults: [{at: 20s, kind: kill, target: 2, for: 15s}]   # kill, pause, slow-disk, ...
    after_operations: 15s                      # end the phase 15 s after the timeline is over
    verify: QUORUM                             # read back every acknowledged write after it
    profile: [cpu]                             # JFR on every node over the measured phase
    claims:                                    # the study's claims, judged in the report
      - {says: "LCS beat STCS", source: "seed 001, Table 2", seed_value: {a: 2358, b: 2350},
         compare: {a: {table.compaction: LCS}, b: {table.compaction: STCS}},
         kpi: op_rate, direction: higher}       # or not_testable: <why>

Factor kinds, by name: ``config.<cassandra.yaml key>`` (nodes restart when it changes),
``config.<key>+<key>...`` (a *linked* factor: each level is a list with one value per
key, and the keys move together), ``table.<option>`` (a CQL table option;
``table.compaction`` levels are a strategy name or a mapping ``{class: ..., <option>:
...}``), ``workload`` (a cassandra-stress or YCSB command), ``threads`` (closed-loop
concurrency), ``rate`` (ops/s, open loop), ``nodes``, and ``cluster.<field>`` for the
nodes' isolation and limits: ``cluster.isolation`` (``process`` or ``netns``),
``cluster.node_size`` (a VM-size profile such as ``t2.small``), ``cluster.cpus``,
``cluster.memory`` and ``cluster.topology`` (a preset's name such as ``far-apart``, or an
inline definition: :mod:`casslab.net.presets`), and the nodes' software: ``cluster.version``
(a Cassandra version such as ``5.0.8``: each level's settings are checked against its own
catalogue and the JDK must run it), ``cluster.heap`` (``512M``, ``1G``), ``cluster.gc``
(``G1``, Cassandra's settings and the default, ``ZGC``, ``Shenandoah``, ``Parallel``) and
``cluster.preset`` (``default``, ``latest``: what the version's ``conf/cassandra_latest.yaml``
changes, under ``config:``; :mod:`casslab.cluster.presets`) and ``cluster.java_home`` (a
JDK's home: the nodes run on its ``bin/java``; each level checked with every version by
:mod:`casslab.experiment.file.jdk_checks`). A change of a
``nodes`` or ``cluster.*``
level makes a new cluster, but for ``cluster.clock`` (the nodes' clock offsets, e.g.
``{2: -500ms}``, set without a restart) and ``lww.<field>`` (the last-write-wins probe of
the ``lww`` section): :mod:`casslab.experiment.steps.skew.skew_section`.

``rate`` levels may be shares of the capacity a ``discover:`` step finds per group of cells
(``rate: [100%, 66%]``), and ``threads: [best]`` takes the thread ramp's best count:
:mod:`casslab.experiment.steps.discover.discover_section`.

The ``cluster`` section's ``isolation``, ``node_size``, ``cpus``, ``memory``, ``cpu_scale``,
``cpuset``, ``io_read`` and ``io_write`` mean what the same fields of
:class:`casslab.cluster.ClusterSpec` (``casslab up --isolation netns --node-size t2.small``)
mean, with the same rules; any of them runs the nodes on the isolated backend.

``cluster.topology`` gives the datacenters (with racks) and the emulated WAN links between
them; it implies ``isolation: netns`` and gives the node count. With a topology, the load
engine runs against one datacenter (``client_dc``, by default the topology's first: its
``local_dc``, so that ``LOCAL_*`` consistency levels mean what they say), and
``schema.replication`` may give one map per topology (:mod:`casslab.experiment.file.replication`).

``measure`` options apply to every measured command: a ``key=value`` of the workload
wins over the same key in ``measure``, an option of the workload (``-rate``, ``-pop``)
replaces the same option of ``measure``, and ``threads`` / ``rate`` levels override both
(see :func:`casslab.experiment.file.load_commands.compose_command`). When the workload factor mixes
cassandra-stress and YCSB commands, ``measure`` is a mapping ``{stress: ..., ycsb: ...}``.
Files named in commands (``user profile=...``, YCSB ``-P``) are relative to the
experiment file.

The records here check each field's own shape; the table's options live in
:mod:`casslab.experiment.file.table_options`. Checks across fields and against other parts
(cassandra.yaml settings, stress syntax, KPI names) live in
:mod:`casslab.experiment.file.file_checks`; :mod:`casslab.experiment.file.experiment_loader` runs
them all and reports every problem of a file at once.
"""

from __future__ import annotations

import difflib
import re
from enum import StrEnum
from typing import Annotated, Any, Literal

from pydantic import (
    ConfigDict,
    Discriminator,
    Field,
    StrictInt,
    Tag,
    field_validator,
    model_validator,
)

from casslab.analysis.analysis_records import DEFAULT_KPIS
from casslab.analysis.claim_records import Claim
from casslab.analysis.profile_kind import ProfileKind
from casslab.cluster import NodeIsolation, collectors, jvm_options, node_versions, presets
from casslab.engine_contract.workload_spec import Consistency
from casslab.errors import ConfigError
from casslab.experiment.file.file_record import SCHEMA_VERSION, Level, Record
from casslab.experiment.file.replication import checked_replication
from casslab.experiment.file.table_options import TABLE_OPTIONS, TableOptions
from casslab.experiment.steps.discover.discover_section import DiscoverSection
from casslab.experiment.steps.skew.skew_section import LWW_FACTOR_FIELDS, LwwSection, clock_offsets
from casslab.faults.model import Fault
from casslab.host.jdk import checked_java_home
from casslab.load.credentials import mask_data
from casslab.net.presets import resolve_topology
from casslab.units import duration_s

# ---------------------------------------------------------------- durations


def parse_duration_s(value: object) -> float:
    """``"10s"`` -> 10.0, ``"5m"`` -> 300.0, ``"500ms"`` -> 0.5, a bare number is seconds.

    Raises ValueError with the accepted forms when ``value`` is none of them.
    """
    seconds = duration_s(value)
    if seconds is not None:
        return seconds
    if isinstance(value, int | float) and not isinstance(value, bool):
        raise ValueError(f"expected a duration >= 0, got {value!r}")
    raise ValueError(f"expected a duration like 10s, 5m or 1h, got {value!r}")


# ---------------------------------------------------------------- file sections


_HEAP_RE = re.compile(r"^\d+[MmGg]$")
_VERSION_RE = re.compile(r"^\d+\.\d+\.\d+$")


CLUSTER_FACTOR_FIELDS = (
    "isolation",
    "node_size",
    "cpus",
    "memory",
    "topology",
    "version",
    "heap",
    "gc",
    "preset",
    "java_home",
)
"""The fields of :class:`ClusterSection` a ``cluster.<field>`` factor may vary: the nodes'
isolation and limits (:class:`NodeIsolation`), the topology, the Cassandra version and
the heap, the collector, the settings preset and the JDK."""
SOFTWARE_FIELDS = ("version", "heap", "gc", "preset", "java_home")
"""The ``cluster.<field>`` factors that change what the nodes run, not where."""


class ClusterSection(NodeIsolation):
    """The cluster every trial runs on; ``config`` is cassandra.yaml by 5.0 names, the
    inherited fields the nodes' isolation and limits (:class:`NodeIsolation`)."""

    nodes: StrictInt = Field(default=1, ge=1)
    version: str | None = None  # None: the default 5.0.x (or CASSANDRA_HOME)
    # nodes on another version from the start, e.g. {2: 5.0.8}: casslab.cluster.node_versions
    node_versions: dict[int, str] | None = None
    heap: str | None = None  # JVM heap per node, e.g. 1G or 512M; None: sized from memory
    gc: str | None = None  # the JVM's collector: G1 (None: Cassandra's), ZGC, Shenandoah, ...
    # a settings preset under config: (None: default; latest: cassandra_latest.yaml's changes)
    preset: str | None = None
    # the JDK the nodes run on (None: $JAVA_HOME, else java on PATH): casslab.host.jdk
    java_home: str | None = None
    # added to every node's java command, as `casslab up --jvm-option` (-D properties and
    # -XX: flags, after casslab's own): casslab.cluster.jvm_options
    jvm_options: tuple[str, ...] = ()
    config: dict[str, Any] = Field(default_factory=dict)
    # a preset's name or an inline {datacenters, racks, links, name}: casslab.net.presets
    topology: str | dict[str, Any] | None = None
    # clock offsets per node, e.g. {2: -500ms}: casslab.experiment.steps.skew.skew_section
    clock: dict[int, str] | None = None
    # an existing cluster to run on, by name (casslab attach / casslab up made it): used as
    # it is, never started, restarted, wiped or destroyed: casslab.experiment.file.existing_checks
    use: str | None = Field(default=None, min_length=1)
    # an inventory file of real hosts, one node each (the ssh backend), relative to the
    # experiment file: casslab.experiment.file.hosts_checks
    hosts: str | None = Field(default=None, min_length=1)

    @field_validator("clock", mode="before")
    @classmethod
    def _clock(cls, value: Any) -> Any:
        clock_offsets(value)  # raises ValueError naming the value and the form
        return value

    @field_validator("node_versions", mode="before")
    @classmethod
    def _node_versions(cls, value: Any) -> Any:
        return node_versions.parse(value) if value is not None else None

    @model_validator(mode="after")
    def _node_versions_in_cluster(self) -> ClusterSection:
        outside = sorted(n for n in self.node_versions or {} if n > self.nodes)
        if outside and self.topology is None:
            raise ValueError(
                f"node_versions names node(s) {outside}, but nodes is {self.nodes}; "
                "raise nodes or drop those"
            )
        return self

    @field_validator("topology", mode="before")
    @classmethod
    def _topology(cls, value: Any) -> Any:
        if value is not None:
            try:
                resolve_topology(value)
            except ConfigError as error:
                raise ValueError(str(error)) from error
        return value

    @field_validator("gc")
    @classmethod
    def _gc(cls, value: str | None) -> str | None:
        return collectors.canonical(value) if value is not None else None

    @field_validator("preset")
    @classmethod
    def _preset(cls, value: str | None) -> str | None:
        return presets.field_value(value)

    @field_validator("jvm_options")
    @classmethod
    def _jvm_options(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        return jvm_options.checked(value)

    @field_validator("java_home")
    @classmethod
    def _java_home(cls, value: str | None) -> str | None:
        return checked_java_home(value) if value is not None else None

    @field_validator("heap")
    @classmethod
    def _heap(cls, value: str | None) -> str | None:
        if value is not None and not _HEAP_RE.match(value):
            raise ValueError(f"expected a heap size like 512M or 1G, got {value!r}")
        return value

    @field_validator("version", mode="before")
    @classmethod
    def _version(cls, value: Any) -> Any:
        if isinstance(value, float):  # YAML reads 5.0 as a number
            value = str(value)
        if isinstance(value, str) and not _VERSION_RE.match(value):
            raise ValueError(f"expected a Cassandra version like 5.0.9, got {value!r}")
        return value

    @property
    def node_isolation(self) -> NodeIsolation:
        """The isolation and limits this section gives every node."""
        return NodeIsolation.model_validate(
            {name: getattr(self, name) for name in NodeIsolation.model_fields}
        )


def _simple_replication() -> dict[str, str | int]:
    return {"class": "SimpleStrategy", "replication_factor": 1}


class SchemaSection(Record):
    """The keyspace the workload uses and its replication."""

    keyspace: str = Field(default="keyspace1", pattern=r"^[A-Za-z][A-Za-z0-9_]{0,47}$")
    # one CQL replication map, or one per topology name (casslab.experiment.file.replication)
    replication: dict[str, Any] = Field(default_factory=_simple_replication)

    @field_validator("replication")
    @classmethod
    def _replication(cls, value: dict[str, Any]) -> dict[str, Any]:
        return checked_replication(value)


class OrderKind(StrEnum):
    RANDOMIZED = "randomized"  # every round of iterations runs the cells in a seeded order
    SEQUENTIAL = "sequential"  # cells in design order, all iterations of one cell in a row


class Order(Record):
    kind: OrderKind = OrderKind.RANDOMIZED
    seed: StrictInt = 1

    @model_validator(mode="before")
    @classmethod
    def _from_word(cls, data: Any) -> Any:
        if isinstance(data, str):
            return {"kind": data}
        return data


class Design(StrEnum):
    FACTORIAL = "factorial"  # every combination of levels
    OFAT = "ofat"  # the baseline, then each factor's other levels with the rest at baseline


class ResetPolicy(StrEnum):
    TRUNCATE = "truncate"  # empty the tables (no snapshot), keep schema and nodes
    RECREATE = "recreate"  # drop and re-create the keyspace
    RESTART = "restart"  # stop the nodes, wipe their data, start them again
    NONE = "none"  # keep the data (the preload writes over it): an existing cluster's default


class Until(Record):
    """When adaptive iterations stop: every cell's CI on every named KPI is this narrow."""

    kpis: list[str] = Field(min_length=1)
    ci_half_width_pct: float = Field(gt=0, le=100)  # half-width of the CI, % of the mean
    confidence: float = Field(default=0.95, ge=0.5, lt=1)


class AdaptiveIterations(Record):
    """``iterations: {min: 3, max: 20, until: {...}}``: randomized rounds are added after
    ``min`` until :class:`Until` holds for every cell or ``max`` rounds have run."""

    min: StrictInt = Field(default=3, ge=2)  # a CI needs two trials
    max: StrictInt = Field(ge=2)
    until: Until

    @model_validator(mode="after")
    def _max_at_least_min(self) -> AdaptiveIterations:
        if self.max < self.min:
            raise ValueError(f"max ({self.max}) must be >= min ({self.min})")
        return self


MAX_DATA_SEED = 2**63  # the engine's i64


def _iterations_kind(value: Any) -> str:
    """``iterations`` is a count, or a mapping for adaptive iterations."""
    return "adaptive" if isinstance(value, dict | AdaptiveIterations) else "fixed"


class Experiment(Record):
    """One experiment file, checked field by field. See the module docstring for the shape."""

    schema_version: Literal[1] = SCHEMA_VERSION
    name: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
    description: str = ""
    cluster: ClusterSection = Field(default_factory=ClusterSection)
    schema_: SchemaSection = Field(default_factory=SchemaSection, alias="schema")
    # the datacenter the load engine runs against (None: the topology's first); checked
    # against the topologies by casslab.experiment.file.topology_checks
    client_dc: str | None = None
    table: TableOptions = Field(default_factory=TableOptions)
    factors: dict[str, list[Level]] = Field(default_factory=dict)
    design: Design = Design.FACTORIAL
    baseline: dict[str, Level] = Field(default_factory=dict)
    extra_cells: list[dict[str, Level]] = Field(default_factory=list)
    preload: str | None = None
    warmup: str | int | float = "0s"
    workload: str | None = None
    measure: str | dict[str, str] = ""  # a mapping: options by front end (mixed workloads)
    iterations: Annotated[
        Annotated[Annotated[StrictInt, Field(ge=1)], Tag("fixed")]
        | Annotated[AdaptiveIterations, Tag("adaptive")],
        Discriminator(_iterations_kind),
    ] = 3
    order: Order = Field(default_factory=Order)
    data_seed: StrictInt = Field(default=0, ge=0, lt=MAX_DATA_SEED)
    reset: ResetPolicy = ResetPolicy.TRUNCATE
    kpis: list[str] = Field(default_factory=lambda: list(DEFAULT_KPIS))
    lww: LwwSection | None = (
        None  # the last-write-wins probe: casslab.experiment.steps.skew.skew_section
    )
    # the capacity of each group of cells, before its first trial: experiment.discover
    discover: DiscoverSection | None = None
    # the preload's and measured phase's load clients: N engines here, or an inventory
    # whose clients: hosts run one each (casslab.experiment.run.load_clients)
    clients: StrictInt | str | None = None
    faults: list[Fault] = Field(default_factory=list)  # a timeline: casslab.faults.model
    # end the measured phase this long after the timeline's operations and faults are all
    # over (its duration= stays the upper bound): casslab.experiment.steps.faults
    after_operations: str | None = None
    verify: Consistency | None = None  # read back acknowledged writes: experiment.verification
    # server profiles over the measured phase (cpu, alloc, lock, wall): steps.profile
    profile: list[ProfileKind] = Field(default_factory=list)
    # the study's claims and how casslab tests them: casslab.analysis.claim_records
    claims: list[Claim] = Field(default_factory=list)

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)

    @model_validator(mode="before")
    @classmethod
    def _existing_cluster_keeps_its_data(cls, data: Any) -> Any:
        """On an existing cluster (``cluster.use``) nothing is emptied unless the file says
        ``reset: truncate``."""
        if isinstance(data, dict) and "reset" not in data:
            cluster = data.get("cluster")
            if isinstance(cluster, dict) and cluster.get("use") is not None:
                return {**data, "reset": ResetPolicy.NONE.value}
        return data

    @field_validator("clients", mode="before")
    @classmethod
    def _clients(cls, value: Any) -> Any:
        if value is None or (isinstance(value, str) and value.strip()):
            return value
        if isinstance(value, int) and not isinstance(value, bool) and value >= 1:
            return value
        raise ValueError(
            f"{value!r}: give a number of load engines on this machine (1 or more) or the "
            "path of an inventory whose clients: hosts run one engine each"
        )

    @field_validator("warmup", mode="before")
    @classmethod
    def _warmup(cls, value: Any) -> Any:
        parse_duration_s(value)  # raises ValueError naming the accepted forms
        return value

    @field_validator("after_operations", mode="before")
    @classmethod
    def _after_operations(cls, value: Any) -> Any:
        if value is not None:
            parse_duration_s(value)  # raises ValueError naming the accepted forms
        return value

    @property
    def warmup_s(self) -> float:
        return parse_duration_s(self.warmup)

    @property
    def after_operations_s(self) -> float | None:
        """Seconds from the end of the timeline to the end of the measured phase (None:
        the phase runs its duration)."""
        return None if self.after_operations is None else parse_duration_s(self.after_operations)

    @property
    def min_iterations(self) -> int:
        """The rounds every run has: ``iterations``, or its ``min`` when adaptive."""
        return self.iterations if isinstance(self.iterations, int) else self.iterations.min

    @property
    def adaptive(self) -> AdaptiveIterations | None:
        """The adaptive rule, or None when the file gives a fixed number of iterations."""
        return None if isinstance(self.iterations, int) else self.iterations

    @property
    def reshapes_cluster(self) -> bool:
        """An operation of its timeline reshapes the cluster (upgrade, add-node,
        decommission, replace): every trial after one runs on a new cluster."""
        return any(fault.of_kind.reshapes_cluster for fault in self.faults)

    def to_file_dict(self) -> dict[str, Any]:
        """The experiment as a plain mapping with the file's field names, passwords in
        its commands masked (for manifests and the plan digest; it still validates)."""
        masked: dict[str, Any] = mask_data(self.model_dump(mode="json", by_alias=True))
        return masked


# ---------------------------------------------------------------- factors


class FactorKind(StrEnum):
    CONFIG = "config"  # cassandra.yaml setting(s): nodes restart when a level changes
    TABLE = "table"  # a CQL table option of the measured table
    WORKLOAD = "workload"  # a cassandra-stress or YCSB command
    THREADS = "threads"  # closed-loop concurrency
    RATE = "rate"  # open-loop target rate, ops/s
    NODES = "nodes"  # node count
    CLUSTER = "cluster"  # the nodes' isolation or limits: a new cluster when it changes
    CLOCK = "clock"  # cluster.clock: the nodes' clock offsets, set without a restart
    LWW = "lww"  # lww.<field>: the last-write-wins probe after the measured phase


_KEY_RE = re.compile(r"^[a-z][a-z0-9_]*$")
FACTOR_FORMS = (
    "config.<cassandra.yaml key>, config.<key>+<key> (linked), table.<option>, "
    "workload, threads, rate, nodes, cluster.<field> ("
    + ", ".join((*CLUSTER_FACTOR_FIELDS, "clock"))
    + ") or lww.<field> ("
    + ", ".join(LWW_FACTOR_FIELDS)
    + ")"
)


class Factor(Record):
    """A factor of the design: what it varies and its levels, in file order."""

    name: str  # as written in the file: "config.memtable_flush_writers"
    kind: FactorKind
    keys: tuple[str, ...] = ()  # config keys (several when linked), a table option or field
    levels: tuple[Level, ...]

    @property
    def linked(self) -> bool:
        return self.kind is FactorKind.CONFIG and len(self.keys) > 1

    @property
    def short_name(self) -> str:
        """The name without its kind prefix: ``memtable_flush_writers``, ``compaction``."""
        return "+".join(self.keys) if self.keys else self.name


def parse_factor_name(name: str) -> tuple[FactorKind, tuple[str, ...]]:
    """``config.a+b`` -> (CONFIG, ("a", "b")); ``threads`` -> (THREADS, ()).

    Raises ValueError naming the accepted forms for an unknown kind or a malformed key.
    """
    kind_text, dot, rest = name.partition(".")
    simple = {FactorKind.WORKLOAD, FactorKind.THREADS, FactorKind.RATE, FactorKind.NODES}
    if not dot and kind_text in {k.value for k in simple}:
        return FactorKind(kind_text), ()
    if dot and kind_text == FactorKind.CONFIG.value:
        keys = tuple(key.strip() for key in rest.split("+"))
        bad = [key for key in keys if not _KEY_RE.match(key)]
        if bad:
            raise ValueError(
                f"malformed cassandra.yaml key {bad[0]!r} in factor {name!r}: expected "
                "config.<key> or config.<key>+<key> with lower-case keys"
            )
        if len(set(keys)) != len(keys):
            raise ValueError(f"factor {name!r} names a key twice")
        return FactorKind.CONFIG, keys
    if dot and kind_text == FactorKind.TABLE.value:
        if rest not in TABLE_OPTIONS:
            close = difflib.get_close_matches(rest, TABLE_OPTIONS, n=1)
            hint = f" (did you mean table.{close[0]}?)" if close else ""
            raise ValueError(f"unknown table option {rest!r}{hint}")
        return FactorKind.TABLE, (rest,)
    if dot and kind_text == FactorKind.CLUSTER.value and rest == "clock":
        return FactorKind.CLOCK, ("clock",)
    if dot and kind_text == FactorKind.LWW.value:
        if rest not in LWW_FACTOR_FIELDS:
            fields = ", ".join(f"lww.{f}" for f in LWW_FACTOR_FIELDS)
            raise ValueError(f"unknown lww factor {name!r}: an lww factor is one of {fields}")
        return FactorKind.LWW, (rest,)
    if dot and kind_text == FactorKind.CLUSTER.value:
        if rest not in CLUSTER_FACTOR_FIELDS:
            fields = ", ".join(f"cluster.{f}" for f in (*CLUSTER_FACTOR_FIELDS, "clock"))
            moved = " (the node count is the factor nodes)" if rest == "nodes" else ""
            raise ValueError(
                f"unknown cluster factor {name!r}{moved}: a cluster factor is one of {fields}"
            )
        return FactorKind.CLUSTER, (rest,)
    raise ValueError(f"unknown factor kind {name!r}: expected {FACTOR_FORMS}")


def factors_of(experiment: Experiment) -> tuple[Factor, ...]:
    """The experiment's factors as records, in file order (the file must be valid)."""
    out: list[Factor] = []
    for name, levels in experiment.factors.items():
        kind, keys = parse_factor_name(name)
        out.append(Factor(name=name, kind=kind, keys=keys, levels=tuple(levels)))
    return tuple(out)
