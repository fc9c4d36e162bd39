"""The expanded plan's records: cells, trials and the plan itself (what ``plan.json`` holds).

:func:`casslab.experiment.design.plan_expansion.expand` makes them; the runner, the report and
``--resume`` read them. A trial carries everything the runner needs, resolved: settings, table
options, commands, reset policy and whether the nodes must (re)start first.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Literal

from pydantic import Field

from casslab.cluster import NodeIsolation
from casslab.errors import ExperimentError
from casslab.experiment.design.cluster_setup import ClusterSetup
from casslab.experiment.file.experiment_model import AdaptiveIterations, Design, Order, ResetPolicy
from casslab.experiment.file.file_record import Level, Record
from casslab.experiment.file.load_commands import Command
from casslab.experiment.file.table_options import TableOptions
from casslab.experiment.steps.discover.discover_section import DiscoverNeed
from casslab.experiment.steps.skew.skew_section import LwwProbe
from casslab.net.presets import TopologyChoice


class Cell(Record):
    """One combination of factor levels."""

    id: str  # "compaction=LCS,workload=mixed-9-1"; "baseline" when there are no factors
    levels: dict[str, Level]  # factor name -> level as written in the file
    labels: dict[str, str]  # factor name -> level slug
    baseline: bool = False


class RestartReason(StrEnum):
    FIRST = "first"  # the first trial of a run: nodes start with its configuration
    CONFIG = "config"  # cassandra.yaml settings differ from the previous trial's
    NODES = "nodes"  # the node count differs from the previous trial's
    HEAP = "heap"  # the heap differs from the previous trial's
    VERSION = "version"  # the Cassandra version differs from the previous trial's
    GC = "gc"  # the JVM's garbage collector differs from the previous trial's
    PRESET = "preset"  # the settings preset differs from the previous trial's
    JAVA_HOME = "java_home"  # the nodes' JDK differs from the previous trial's
    # the nodes' isolation or a limit differs from the previous trial's (plan schema 2)
    ISOLATION = "isolation"
    NODE_SIZE = "node_size"
    CPUS = "cpus"
    MEMORY = "memory"
    CPU_SCALE = "cpu_scale"
    CPUSET = "cpuset"
    IO_READ = "io_read"
    IO_WRITE = "io_write"
    # the datacenters or the links between them differ (plan schema 3)
    TOPOLOGY = "topology"
    LINKS = "links"


class Trial(Record):
    """Everything the runner needs for one trial, resolved."""

    trial_id: str  # "<cell id>/<iteration>": stable across runs of the same file
    position: int  # 0-based position in the run order
    cell_id: str
    iteration: int  # 1-based
    levels: dict[str, Level]
    settings: dict[str, Any]  # cassandra.yaml: cluster.config, then config.* levels
    nodes: int
    heap: str | None
    version: str | None
    # nodes on another version from the start (cluster.node_versions; empty: none)
    node_versions: dict[int, str] = Field(default_factory=dict)
    gc: str | None = None  # the nodes' collector (None: Cassandra's G1)
    preset: str | None = None  # the settings preset (None: default): casslab.cluster.presets
    java_home: str | None = None  # the nodes' JDK (None: $JAVA_HOME, else java on PATH)
    # the nodes' isolation and limits: the cluster section's, then cluster.* levels
    node_isolation: NodeIsolation = Field(default_factory=NodeIsolation)
    # the datacenters and links (plan schema 3; None: one datacenter, no links)
    topology: TopologyChoice | None = None
    client_dc: str | None = None  # as the file gives it; see local_dc
    keyspace: str
    replication: dict[str, str | int]
    table: TableOptions
    preload: Command | None
    warmup_s: float
    workload: Command  # the measured command, measure options and overrides applied
    reset: ResetPolicy
    restart: bool  # nodes must (re)start before this trial: its cluster setup changed
    restart_reason: RestartReason | None = None
    # clock offsets per node, ms (cluster.clock; set without a restart), and the
    # last-write-wins probe after the measured phase (None: none)
    clock: dict[int, float] = Field(default_factory=dict)
    lww: LwwProbe | None = None
    # rate shares or best threads: resolved by the runner after its group's discover step
    # (casslab.experiment.steps.discover.discover_section); ``workload`` is then composed without
    # them
    discover: DiscoverNeed | None = None

    @property
    def setup(self) -> ClusterSetup:
        """What this trial's cluster is built from."""
        return ClusterSetup.of(
            self.nodes,
            self.heap,
            self.version,
            self.settings,
            self.node_isolation.model_dump(),
            self.topology,
            self.gc,
            self.preset,
            self.node_versions,
            self.java_home,
        )

    @property
    def local_dc(self) -> str | None:
        """The datacenter the load engine runs against: ``client_dc``, else the topology's
        first; None without a topology (the engine's default routing)."""
        if self.client_dc is not None:
            return self.client_dc
        return self.topology.datacenters[0] if self.topology is not None else None


PLAN_SCHEMA_VERSION: Literal[3] = 3
"""The plan's own schema (inside ``plan.json``'s envelope). 2: trials carry their nodes'
isolation and limits (``node_isolation``) and restart for a change of them; 3: trials
carry their topology and ``client_dc``. A plan of schema 1 reads as one whose nodes are
plain processes, one of schema 1 or 2 as one without topologies
(:func:`casslab.experiment.design.stored_plan.stored_plan`): what it ran."""


class Plan(Record):
    """The expanded experiment: its cells and its trials in run order."""

    schema_version: Literal[1, 2, 3] = PLAN_SCHEMA_VERSION
    experiment: str
    digest: str  # SHA-256 of the resolved experiment: a resumed run must match it
    design: Design
    order: Order
    iterations: int  # rounds in the plan so far (adaptive runs add rounds as they go)
    adaptive: AdaptiveIterations | None = None  # None: a fixed number of iterations
    factors: tuple[str, ...]
    baseline_cell_id: str
    cells: tuple[Cell, ...]
    trials: tuple[Trial, ...] = Field(default=())

    def cell(self, cell_id: str) -> Cell:
        """The cell with this id; ExperimentError when the plan has none (e.g. a results
        directory written by a different version of the experiment file)."""
        for cell in self.cells:
            if cell.id == cell_id:
                return cell
        raise ExperimentError(
            f"experiment {self.experiment}: no cell {cell_id!r} in the plan; the results "
            "were written by another version of the file (compare the plan digest)"
        )
