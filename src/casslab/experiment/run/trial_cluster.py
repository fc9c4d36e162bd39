"""The cluster a run's trials run on, and what the runner does to get it for each trial.

Two ways: casslab's own cluster, made from the trial's setup and created anew, restarted or
kept as the setup asks (:func:`~casslab.experiment.design.cluster_setup.cluster_action`), and
destroyed at the end of the run; or an existing cluster the file names (``cluster: {use:
NAME}``: one ``casslab attach`` or ``casslab up`` made), which is only used: never created,
restarted, wiped or destroyed, and holds no captures of casslab's (every trial preloads).
With ``cluster: {hosts: hosts.yaml}`` casslab's own cluster runs on the inventory's hosts
(the ssh backend), which take no captures either.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import suppress
from pathlib import Path
from typing import Protocol

from pydantic import ValidationError

from casslab.cluster import ISOLATION_FIELDS, Cluster, ClusterSpec, attach, cluster_spec
from casslab.errors import ClusterError, ConfigError
from casslab.experiment.design.cluster_setup import ClusterAction, ClusterSetup, cluster_action
from casslab.experiment.design.plan_records import Trial
from casslab.experiment.run import events
from casslab.experiment.run.runner_options import OPTION_NAMES, RunnerOptions
from casslab.validation import validation_message


class ClusterFactory(Protocol):
    """Makes a trial's cluster: :func:`casslab.cluster.create`, or a fake in tests."""

    def __call__(self, spec: ClusterSpec, root: Path | None, *, fresh: bool) -> Cluster: ...


class TrialClusters:
    """The run's current cluster, the setup it was built from and the data captured on it."""

    def __init__(
        self,
        experiment_name: str,
        use: str | None,
        hosts: Path | None,
        options: RunnerOptions,
        create_cluster: ClusterFactory,
        emit: events.EventSink,
        before_change: Callable[[], None],
        *,
        injectable_clock: bool = False,
        jvm_options: tuple[str, ...] = (),
    ) -> None:
        """``use``: the name of an existing cluster to run on (None: casslab's own);
        ``hosts``: the inventory file its own cluster runs on (None: this machine);
        ``before_change`` runs before the nodes change (it closes the metrics samplers,
        whose PIDs and JMX connections are about to go); ``injectable_clock``: its own
        cluster's nodes run casslab's clock (the run skews or steps clocks); ``jvm_options``:
        added to its own cluster's nodes (the file's ``cluster.jvm_options``, then Flight
        Recorder at boot for a profiled run)."""
        self._name = f"run-{experiment_name}"[:64]
        self.use = use
        self.hosts = hosts
        self._options = options
        self._create = create_cluster
        self._emit = emit
        self._before_change = before_change
        self._injectable_clock = injectable_clock
        self._jvm_options = jvm_options
        self.cluster: Cluster | None = None
        self._setup: ClusterSetup | None = None  # what self.cluster was built from
        self._captures: set[str] = set()  # data keys captured on self.cluster

    @property
    def captures_data(self) -> bool:
        """Whether preloaded data is captured and restored (not on a cluster casslab does
        not own: its snapshots would be on someone else's nodes; nor on an inventory's
        hosts, whose backend keeps none)."""
        return self.use is None and self.hosts is None

    def captured(self, key: str) -> bool:
        return key in self._captures

    def add_capture(self, key: str) -> None:
        self._captures.add(key)

    def forget_setup(self) -> None:
        """The cluster failed: rebuild it for the next trial."""
        self._setup = None

    def ensure(self, trial: Trial) -> tuple[Cluster, ClusterAction]:
        """The trial's cluster and what was done to get it: created anew when the node
        count, heap, version, the nodes' isolation or limits or the topology change,
        restarted when its cassandra.yaml settings change. Netns nodes take their addresses
        from a bridge subnet the backend picks: ``base_address`` places plain nodes only
        (``jmx_port_base`` counts for both). A named existing cluster is attached once and
        kept."""
        if self.use is not None:
            return self._existing(trial)
        wanted = trial.setup
        cluster = self.cluster
        action = cluster_action(self._setup if cluster is not None else None, wanted)
        if cluster is not None and action is ClusterAction.KEEP:
            return cluster, action
        self._before_change()
        self._emit(events.ClusterChanged(trial=trial, action=action))
        if cluster is not None and action is ClusterAction.RESTART:
            self._setup = None  # until the restart succeeds
            cluster.restart(trial.settings)
            self._setup = wanted
            return cluster, action
        if cluster is not None:
            self.cluster, self._setup = None, None
            cluster.destroy()
        spec = self._spec(trial, wanted)
        self._stop_stale(spec.name)
        self.cluster = self._create(spec, self._options.cluster_root, fresh=True)
        self._captures = set()  # a new cluster has no captured data
        self._setup = wanted
        return self.cluster, action

    def _existing(self, trial: Trial) -> tuple[Cluster, ClusterAction]:
        if self.cluster is not None:
            return self.cluster, ClusterAction.KEEP
        assert self.use is not None
        cluster = attach(self.use, self._options.cluster_root)
        if not cluster.contact_points:
            raise ClusterError(f"cluster {self.use!r} has no nodes to connect to")
        self.cluster = cluster
        self._emit(events.ClusterChanged(trial=trial, action=ClusterAction.KEEP))
        return cluster, ClusterAction.KEEP

    def _spec(self, trial: Trial, wanted: ClusterSetup) -> ClusterSpec:
        fields = wanted.spec_fields()  # nodes, heap, version, isolation and limits
        if self.hosts is not None:  # one node per host; no isolation or limits there
            fields = {k: v for k, v in fields.items() if k not in ISOLATION_FIELDS}
            fields["hosts"] = str(self.hosts)
        try:
            return cluster_spec(
                name=self._name,
                settings=trial.settings,
                base_address=self._options.base_address,
                jmx_port_base=self._options.jmx_port_base,
                injectable_clock=self._injectable_clock,
                jvm_options=self._jvm_options,
                **fields,
            )
        except ValidationError as error:
            raise ConfigError(
                f"trial {trial.trial_id}: its cluster cannot be set up: "
                f"{validation_message(error, names=OPTION_NAMES)}"
            ) from error

    def _stop_stale(self, name: str) -> None:
        """Stop the nodes a killed earlier run of this experiment left running (they are
        this runner's own cluster, found by name in its state file, stopped by PID)."""
        with suppress(ClusterError):
            attach(name, self._options.cluster_root).stop()

    def finish(self) -> None:
        """The run is over: destroy casslab's own cluster (unless ``--keep-cluster``);
        only close the connections to an existing one."""
        if self.cluster is None:
            return
        if self._options.keep_cluster or self.use is not None:
            self.cluster.close_sessions()
        else:
            self.cluster.destroy()
        self.cluster = None
