"""The YCSB front end: ``load|run`` command lines and core workloads into a :class:`WorkloadSpec`.

:func:`parse_ycsb` (:mod:`~casslab.load.ycsb.parse`) reads a command line and its property
files into a typed :class:`YcsbCommand`; :func:`build_ycsb_spec`
(:mod:`~casslab.load.ycsb.build`, also :meth:`YcsbCommand.to_spec`) turns it into the
engine's :class:`~casslab.engine_contract.workload_spec.WorkloadSpec`. The six core workload files
ship in ``workloads/`` (package data, read with :func:`builtin_workload_text`).
"""

from __future__ import annotations

from casslab.load.ycsb.build import build_ycsb_spec
from casslab.load.ycsb.parse import (
    BUILTIN_WORKLOADS,
    CoreWorkload,
    YcsbCommand,
    YcsbPhase,
    builtin_workload_text,
    core_workload,
    parse_properties,
    parse_ycsb,
)

__all__ = [
    "BUILTIN_WORKLOADS",
    "CoreWorkload",
    "YcsbCommand",
    "YcsbPhase",
    "build_ycsb_spec",
    "builtin_workload_text",
    "core_workload",
    "parse_properties",
    "parse_ycsb",
]
