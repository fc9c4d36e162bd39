"""The node numbers along a timeline: what an add-node, a decommission and a replace leave,
which later faults may name which node, and which faults the live cluster checks first."""

from __future__ import annotations

from typing import Any

import pytest

from casslab.errors import ConfigError
from casslab.faults.kinds.add_node.add_node_operation import ADD_NODE
from casslab.faults.kinds.decommission.decommission_operation import (
    DECOMMISSION as DECOMMISSION_OPERATION,
)
from casslab.faults.kinds.repair.repair_operation import REPAIR as REPAIR_OPERATION
from casslab.faults.model import Fault, timeline_problems
from casslab.faults.projection import in_order, project


def _f(at: int, kind: str, target: Any, **fields: Any) -> Fault:
    return Fault.model_validate({"at": at, "kind": kind, "target": target} | fields)


UPGRADE = _f(20, "upgrade", "all", to="5.0.9")
ADD = _f(30, "add-node", 4)
DECOMMISSION = _f(40, "decommission", 4)
REPAIR = _f(50, "repair", 1)


def test_the_operations_study_adds_a_node_then_decommissions_it() -> None:
    found = project([1, 2, 3], [UPGRADE, ADD, DECOMMISSION, REPAIR])
    assert found.problems == ()
    # the upgrade and the add-node are checked on the live cluster before the timeline
    # begins; the decommission of node 4 and the repair after it when their time comes
    assert found.live_checked == 2


def test_a_timeline_without_a_change_of_nodes_is_checked_whole_up_front() -> None:
    found = project([1, 2, 3], [UPGRADE, REPAIR, _f(60, "restart", 2)])
    assert found == found.__class__(problems=(), live_checked=3)
    assert project([1, 2], []).live_checked == 0


def test_a_node_that_is_gone_then_cannot_be_a_target() -> None:
    kill = _f(45, "kill", 4, **{"for": "5s"})
    [problem] = project([1, 2, 3], [ADD, DECOMMISSION, kill]).problems
    assert problem == (
        "faults[2]: target node 4, but the cluster has 3 node(s) after faults[1] "
        "(decommission): nodes 1, 2, 3"
    )


def test_only_the_last_node_leaves_and_never_the_only_one() -> None:
    [problem] = project([1, 2, 3], [ADD, _f(40, "decommission", 3)]).problems
    assert problem == (
        "faults[1]: decommission node 3: node 3 of the cluster by then is not its last "
        "node (4): casslab numbers a cluster's nodes 1 to N; decommission node 4 instead"
    )
    [alone] = project([1], [_f(5, "decommission", 1)]).problems
    assert alone == (
        "faults[0]: decommission node 1: node 1 is the cluster's last node: a cluster keeps "
        "one at least"
    )


def test_an_added_node_takes_the_next_number_after_a_replace_too() -> None:
    # node 2 replaced: the new node is 4 (the next number), node 2 is gone
    replace = _f(10, "replace", 2)
    assert project([1, 2, 3], [replace, _f(20, "add-node", 5)]).problems == ()
    [problem] = project([1, 2, 3], [replace, _f(20, "add-node", 4)]).problems
    assert problem == (
        "faults[1]: add-node node 4: the new node will be node 5, not 4; write target: 5"
    )
    [alone] = project([1], [_f(10, "replace", 1)]).problems
    assert alone == (
        "faults[0]: replace node 1: node 1 is the cluster's last node: a cluster keeps one at least"
    )
    [gone] = project([1, 2, 3], [replace, _f(20, "restart", 2)]).problems
    assert "target node 2, but the cluster has 3 node(s) after faults[0] (replace)" in gone


def test_problems_name_the_faults_as_written_not_as_sorted() -> None:
    # written out of time order: faults[0] runs last
    [problem] = project([1, 2], [_f(50, "decommission", 2), _f(10, "decommission", 2)]).problems
    assert problem.startswith("faults[0]: target node 2, but the cluster has 1 node(s) after")


def test_the_file_check_projects_nodes_one_to_n() -> None:
    assert timeline_problems([UPGRADE, ADD, DECOMMISSION, REPAIR], nodes=3) == []
    assert timeline_problems([ADD, _f(40, "decommission", 3)], nodes=3) == [
        "faults[1]: decommission node 3: node 3 of the cluster by then is not its last "
        "node (4): casslab numbers a cluster's nodes 1 to N; decommission node 4 instead"
    ]


def test_ties_keep_the_order_written() -> None:
    first, second = _f(10, "flush", 1), _f(10, "compact", 1)
    assert in_order([first, second]) == [first, second]


def test_each_operation_says_what_it_leaves() -> None:
    assert ADD_NODE.nodes_after((1, 2, 3), ADD) == (1, 2, 3, 4)
    assert DECOMMISSION_OPERATION.nodes_after((1, 2, 3, 4), DECOMMISSION) == (1, 2, 3)
    with pytest.raises(
        ConfigError, match=r"node 4 of the cluster by then is not its last node \(5\)"
    ):
        DECOMMISSION_OPERATION.nodes_after((1, 2, 3, 4, 5), DECOMMISSION)
    assert REPAIR_OPERATION.nodes_after((1, 2), REPAIR) == (1, 2)
