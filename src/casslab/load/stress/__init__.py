"""The cassandra-stress front end: command lines and user profiles into a :class:`WorkloadSpec`.

:func:`parse_stress` (:mod:`~casslab.load.stress.parse`) reads a command line into a typed
:class:`StressCommand` (:mod:`~casslab.load.stress.model`; option groups in
:mod:`~casslab.load.stress.groups`, tokens in :mod:`~casslab.load.stress.tokens`,
distributions in :mod:`~casslab.load.stress.dist`); :meth:`StressCommand.to_spec`
(:mod:`~casslab.load.stress.build`) turns it into the engine's
:class:`~casslab.engine_contract.workload_spec.WorkloadSpec`, reading a ``user`` command's profile
(:mod:`~casslab.load.stress.profile`, :mod:`~casslab.load.stress.profile_cql`) and a
``-transport`` truststore (:mod:`~casslab.load.stress.truststore`).
"""

from __future__ import annotations

from casslab.load.stress.model import (
    StressColumns,
    StressCommand,
    StressCommandKind,
    StressErrors,
    StressGraph,
    StressLog,
    StressMode,
    StressPopulation,
    StressRate,
    StressSchema,
    StressTransport,
    Truncate,
)
from casslab.load.stress.parse import parse_stress, tokenize

__all__ = [
    "StressColumns",
    "StressCommand",
    "StressCommandKind",
    "StressErrors",
    "StressGraph",
    "StressLog",
    "StressMode",
    "StressPopulation",
    "StressRate",
    "StressSchema",
    "StressTransport",
    "Truncate",
    "parse_stress",
    "tokenize",
]
