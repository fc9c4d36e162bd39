"""The ``faults:`` timeline as written: durations and node names, what is refused with
the reason, and two faults on one node at once."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from pydantic import ValidationError

from casslab.faults.model import Fault, timeline_problems


def _fault(**fields: object) -> Fault:
    return Fault.model_validate({"at": "20s", "kind": "kill", "target": 2, "for": "15s"} | fields)


def test_a_clock_jump_and_its_offset() -> None:
    jump = _fault(kind="clock-jump", offset="-5s", target="node3")
    assert (jump.kind, jump.fields.offset_ms) == ("clock-jump", -5000.0)
    assert jump.describe() == "clock-jump node 3 by -5000 ms at 20 s for 15 s"


def test_a_partition_names_a_datacenter_or_a_link() -> None:
    assert _fault(kind="partition", target="dc3").target == "dc3"
    assert _fault(kind="partition", target="dc1-dc3").describe() == (
        "partition dc1-dc3 at 20 s for 15 s"
    )
    with pytest.raises(ValidationError) as caught:
        _fault(kind="partition", target=2)
    assert "give a datacenter (dc3) or a link (dc1-dc3)" in str(caught.value)


def test_a_slow_disk_and_its_rate() -> None:
    slow = _fault(kind="slow-disk", rate="2MiB/s", iops=50)
    assert (slow.kind, slow.fields.rate_bps, slow.fields.iops) == ("slow-disk", 2 * 2**20, 50)
    assert slow.describe() == "slow-disk node 2 to 2 MiB/s and 50 IOPS at 20 s for 15 s"
    assert _fault(kind="slow-disk", rate="512K").fields.rate_bps == 512 * 1024
    assert _fault(kind="slow-disk", iops=20).describe() == (
        "slow-disk node 2 to 20 IOPS at 20 s for 15 s"
    )


def test_times_and_targets_as_written() -> None:
    fault = _fault(target="node3", at="1m", **{"for": "1500ms"})
    assert (fault.at_s, fault.kind, fault.target, fault.for_s) == (60.0, "kill", 3, 1.5)
    assert fault.end_s == 61.5
    assert _fault(at=0, kind="pause").describe() == "pause node 2 at 0 s for 15 s"


@pytest.mark.parametrize(
    ("fields", "said"),
    [
        ({"kind": "slow-disk"}, "a slow-disk needs rate (e.g. rate: 2MiB/s) and/or iops"),
        ({"kind": "slow-disk", "rate": "fast"}, "rate 'fast': expected a size like 2MiB/s"),
        ({"kind": "slow-disk", "rate": "0MiB/s"}, "must be more than zero, e.g. 2MiB/s"),
        ({"kind": "slow-disk", "iops": 0}, "greater than 0"),
        ({"kind": "kill", "rate": "1MiB/s"}, "rate and iops are for slow-disk faults, not kill"),
        ({"kind": "reboot"}, "'compact', 'decommission', 'add-node', 'upgrade' or 'replace'"),
        ({"kind": "clock-jump"}, "a clock-jump needs offset: how far the clock steps"),
        ({"kind": "kill", "offset": "-5s"}, "offset is for clock-jump faults, not kill"),
        ({"kind": "clock-jump", "offset": "5"}, "offset '5': give a signed duration"),
        ({"target": "dc3"}, "target 'dc3': give a node number (2) or name (node2)"),
        ({"target": 0}, "give a node number"),
        ({"at": "soon"}, "at 'soon': give a duration such as 20s"),
        ({"for": "0s"}, "a fault lasts more than 0 s"),
    ],
)
def test_bad_faults_are_named(fields: dict[str, object], said: str) -> None:
    with pytest.raises(ValidationError) as caught:
        _fault(**fields)
    assert said in str(caught.value)


def test_a_target_beyond_the_cluster_and_overlaps_on_one_node() -> None:
    faults = [
        _fault(at="10s", target=2),  # until 25 s
        _fault(at="20s", target=2, kind="pause"),  # node 2 still down
        _fault(at="20s", target=3),  # another node: fine
        _fault(at="40s", target=2),  # after the first ended: fine
        _fault(at="0s", target=5),
    ]
    problems = timeline_problems(faults, nodes=3)
    assert problems == [
        "faults[4]: target node 5, but the cluster has 3 node(s)",
        "faults[1]: node 2 is still under faults[0] (kill node 2 at 10 s for 15 s); start it "
        "after 25 s",
    ]


def test_an_experiment_file_names_the_bad_fault_before_anything_starts() -> None:
    from casslab.errors import ExperimentValidationError
    from casslab.experiment.file import experiment_loader

    text = """
name: faulty
cluster: {nodes: 3}
workload: write
measure: "duration=30s"
faults: [{at: 5s, kind: kill, target: 4, for: 10s}, {at: 5s, kind: slow-disk, target: 2, for: 1s}]
"""
    with pytest.raises(ExperimentValidationError) as caught:
        experiment_loader.parse(text, "faulty.yaml")
    said = " ".join(caught.value.problems)
    assert "faults" in said
    assert "a slow-disk needs rate" in said
    fixed = text.replace(", {at: 5s, kind: slow-disk, target: 2, for: 1s}", "")
    with pytest.raises(ExperimentValidationError) as again:
        experiment_loader.parse(fixed, "faulty.yaml")
    assert again.value.problems == ["faults[0]: target node 4, but the cluster has 3 node(s)"]
    assert experiment_loader.parse(fixed.replace("target: 4", "target: 3"), "faulty.yaml").faults


def test_a_slow_disk_in_a_file_needs_isolated_nodes_in_every_trial() -> None:
    """Refused when the file loads (not when the trial's timeline is built, after the
    cluster started and the data was loaded): plain nodes have no cgroup to throttle."""
    from casslab.errors import ExperimentValidationError
    from casslab.experiment.file import experiment_loader

    text = """
name: slow
cluster: {nodes: 1, heap: 512M}
workload: write
measure: "duration=30s"
faults: [{at: 5s, kind: slow-disk, target: 1, for: 10s, rate: 1MiB/s}]
"""
    with pytest.raises(ExperimentValidationError) as caught:
        experiment_loader.parse(text, "slow.yaml")
    assert caught.value.problems == [
        "faults[0]: a slow-disk throttles the node's cgroup, and trial baseline/1 has plain "
        "nodes; give the cluster isolation: netns (or a limit such as cpus: 1), or remove "
        "the fault"
    ]
    isolated = experiment_loader.parse(
        text.replace("heap: 512M}", "heap: 512M, cpus: 1}"), "slow.yaml"
    )
    assert isolated.faults[0].kind == "slow-disk"
    varied = text + "factors: {cluster.cpus: [1, null]}\n"
    with pytest.raises(ExperimentValidationError, match="has plain nodes"):
        experiment_loader.parse(varied, "slow.yaml")


def test_an_operation_ends_when_done_and_takes_no_for() -> None:
    restart = Fault.model_validate({"at": "30s", "kind": "restart", "target": "node2"})
    assert (restart.for_s, restart.end_s, restart.of_kind.ends_when_done) == (None, 30.0, True)
    assert restart.describe() == "restart node 2 at 30 s until done"
    assert "for" not in restart.model_dump(by_alias=True)  # the file's words: no length
    repair = Fault.model_validate({"at": 0, "kind": "repair", "target": 1, "incremental": True})
    assert repair.describe() == "repair node 1 (incremental) at 0 s until done"
    assert Fault.model_validate(repair.model_dump(by_alias=True)) == repair
    with pytest.raises(ValidationError, match="a restart ends when it is done, not after a"):
        _fault(kind="restart")
    with pytest.raises(ValidationError, match=r"give how long the kill lasts \(for: 15s\)"):
        Fault.model_validate({"at": 0, "kind": "kill", "target": 1})
    repair_only = "incremental and keyspace are for repair faults, not flush"
    with pytest.raises(ValidationError, match=repair_only):
        Fault.model_validate({"at": 0, "kind": "flush", "target": 1, "incremental": True})


def test_add_node_names_the_node_it_adds() -> None:
    add = Fault.model_validate({"at": 0, "kind": "add-node", "target": 3})
    assert (add.node, add.describe()) == (3, "add-node node 3 at 0 s until done")
    assert timeline_problems([add], nodes=2) == []  # node 3 is the one it makes
    decommission = Fault.model_validate({"at": 0, "kind": "decommission", "target": 3})
    assert timeline_problems([decommission], nodes=2) == [
        "faults[0]: target node 3, but the cluster has 2 node(s)"
    ]


@dataclass(frozen=True)
class _Facts:
    may_have_topology: bool

    def not_isolated(self) -> str | None:
        return None


def test_add_node_names_the_datacenter_it_joins_where_the_file_has_datacenters() -> None:
    add = Fault.model_validate({"at": 0, "kind": "add-node", "target": 3, "datacenter": "dc2"})
    assert add.describe() == "add-node node 3 in dc2 at 0 s until done"
    assert add.of_kind.file_problems(0, add, _Facts(may_have_topology=True)) == []
    assert add.of_kind.file_problems(4, add, _Facts(may_have_topology=False)) == [
        "faults[4]: add-node into datacenter dc2, but this experiment's clusters have no "
        "topology (one datacenter); remove datacenter: or add cluster.topology (e.g. "
        "dc1:2,dc2:1)"
    ]
    plain = Fault.model_validate({"at": 0, "kind": "add-node", "target": 3})
    assert plain.of_kind.file_problems(0, plain, _Facts(may_have_topology=False)) == []
    with pytest.raises(ValidationError, match="datacenter"):
        Fault.model_validate({"at": 0, "kind": "add-node", "target": 3, "datacenter": "d c"})
    with pytest.raises(ValidationError, match="datacenter is for add-node faults, not kill"):
        Fault.model_validate({"at": 0, "kind": "kill", "target": 3, "datacenter": "dc1"})


def test_an_upgrade_acts_on_every_node() -> None:
    upgrade = Fault.model_validate({"at": 5, "kind": "upgrade", "target": "all", "to": "5.0.9"})
    assert (upgrade.target, upgrade.node) == ("all", None)
    assert upgrade.describe() == "upgrade all to 5.0.9 at 5 s until done"
    assert timeline_problems([upgrade], nodes=2) == []
    with pytest.raises(ValidationError, match="upgrade acts on every node; write all"):
        Fault.model_validate({"at": 5, "kind": "upgrade", "target": 2, "to": "5.0.9"})
    with pytest.raises(ValidationError, match="to"):
        Fault.model_validate({"at": 5, "kind": "upgrade", "target": "all", "to": "latest"})


def test_a_node_added_earlier_on_the_timeline_may_be_a_target() -> None:
    add = Fault.model_validate({"at": 10, "kind": "add-node", "target": 3})
    decommission = Fault.model_validate({"at": 20, "kind": "decommission", "target": 3})
    assert timeline_problems([decommission, add], nodes=2) == []
    early = decommission.model_copy(update={"at_s": 5.0})
    assert timeline_problems([early, add], nodes=2) == [
        "faults[0]: target node 3, but the cluster has 2 node(s)"
    ]
