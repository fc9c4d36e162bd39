"""Read and check a capacity problem file (``casslab capacity plan PROBLEM.yaml``).

:func:`load_problem` reads the YAML file (its only I/O) and returns a
:class:`~casslab.capacity.problem.PlanProblem`, or raises
:class:`~casslab.capacity.problem.PlanProblemError` listing every problem as
``<path>: <message>`` with the fix, before anything is solved. The file::

    machines: {count: 8, cpus: 8, memory_gib: 16, pmax_w: 300, k: 0.6}
    # or: machines: [{name: rack1-a, cpus: 8, memory_gib: 16, pmax_w: 300, k: 0.6}, ...]
    vm_types:
      t2.micro: {cpus: 1, memory_gib: 1, heap_gib: 0.5}
    tenants:
      A: {workload: ycsb-a, min_ops: 8000, rf: 3, data_gib: 3}
    throughput:            # measured ops/s of a workload on n virtual nodes of a type
      ycsb-a: {t2.micro: {3: 2795, 6: 7899}}
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Final, Literal

from pydantic import Field, ValidationError

from casslab.capacity.problem import (
    SCHEMA_VERSION,
    Machine,
    MachinePool,
    PlanProblem,
    PlanProblemError,
    Tenant,
    VmType,
)
from casslab.input_files import InputFileError, read_input
from casslab.record import Record
from casslab.validation import validation_problems
from casslab.yaml_reader import parse_yaml

NodeCount = Annotated[int, Field(ge=1)]
OpsPerSecond = Annotated[float, Field(ge=0)]


class PlanProblemFile(Record):
    """The file's shape: machines as a pool (``count``) or as a named list."""

    schema_version: Literal[1] = SCHEMA_VERSION
    machines: MachinePool | list[Machine]
    vm_types: dict[str, VmType] = Field(min_length=1)
    tenants: dict[str, Tenant] = Field(min_length=1)
    throughput: dict[str, dict[str, dict[NodeCount, OpsPerSecond]]] = Field(min_length=1)


def _names(names: list[str]) -> str:
    return ", ".join(names) if names else "none"


def _machine_problems(machines: tuple[Machine, ...]) -> list[str]:
    seen: dict[str, int] = {}
    problems = []
    for index, machine in enumerate(machines):
        if machine.name in seen:
            problems.append(
                f"machines[{index}].name: {machine.name!r} is also machines[{seen[machine.name]}]"
                "; give each machine its own name"
            )
        seen.setdefault(machine.name, index)
    return problems


def _throughput_problems(file: PlanProblemFile) -> list[str]:
    problems = []
    known = list(file.vm_types)
    for workload, rows in file.throughput.items():
        if not rows:
            problems.append(
                f"throughput.{workload}: no VM type; give ops/s per node count for at least "
                f"one of {_names(known)}"
            )
        for vm_type, points in rows.items():
            where = f"throughput.{workload}.{vm_type}"
            if vm_type not in file.vm_types:
                problems.append(
                    f"{where}: unknown VM type {vm_type!r}; add it to vm_types or use one of "
                    f"{_names(known)}"
                )
            if not points:
                problems.append(
                    f"{where}: no measurement; give ops/s per node count, e.g. {{3: 2795, 6: 7899}}"
                )
    return problems


def _tenant_problems(file: PlanProblemFile, machine_count: int) -> list[str]:
    problems = []
    workloads = list(file.throughput)
    for name, tenant in file.tenants.items():
        if tenant.workload not in file.throughput:
            problems.append(
                f"tenants.{name}.workload: no throughput for workload {tenant.workload!r}; add "
                f"throughput.{tenant.workload} (ops/s per VM type and node count) or use one "
                f"of {_names(workloads)}"
            )
        if tenant.rf > machine_count:
            problems.append(
                f"tenants.{name}.rf: {tenant.rf} replicas need {tenant.rf} distinct machines, "
                f"the problem has {machine_count}; lower rf or add machines"
            )
    return problems


MAX_MACHINES: Final = 10_000
"""Machines in one problem: far past any cluster a placement is solved for, and a bound on
what expanding ``{count: N}`` builds before the solver sees it."""


def check_problem(data: Any, source: str = "<problem>") -> PlanProblem:
    """The problem in ``data`` (a parsed YAML document), or raise listing every problem."""
    if not isinstance(data, Mapping):
        kind = "empty" if data is None else f"a {type(data).__name__}"
        raise PlanProblemError(
            source, [f"expected a mapping with machines, vm_types, tenants, throughput; got {kind}"]
        )
    try:
        file = PlanProblemFile.model_validate(data)
    except ValidationError as error:
        raise PlanProblemError(source, validation_problems(error, data)) from error
    pool = file.machines
    count = pool.count if isinstance(pool, MachinePool) else len(pool)
    if count > MAX_MACHINES:
        raise PlanProblemError(
            source,
            [
                f"machines: {count} machines, past casslab's limit of {MAX_MACHINES} for one "
                "placement problem; plan a smaller pool (or split it)"
            ],
        )
    machines = pool.expand() if isinstance(pool, MachinePool) else tuple(pool)
    problems = []
    if not machines:
        problems.append("machines: no machine; list at least one, or give {count: N, ...}")
    problems += _machine_problems(machines)
    problems += _throughput_problems(file)
    problems += _tenant_problems(file, len(machines))
    if problems:
        raise PlanProblemError(source, problems)
    return PlanProblem(
        machines=machines,
        vm_types=file.vm_types,
        tenants=file.tenants,
        throughput=file.throughput,
    )


def parse_problem(text: str, source: str = "<string>") -> PlanProblem:
    """The problem in YAML ``text``; ``source`` names it in messages."""
    return check_problem(parse_yaml(text, source, PlanProblemError), source)


def load_problem(path: Path | str) -> PlanProblem:
    """Read and check the capacity problem file at ``path``."""
    file = Path(path)
    try:
        text = read_input(
            file,
            what="capacity problem",
            fix="check the path (the seed-003 cases are in experiments/capacity/)",
        )
    except InputFileError as error:
        raise PlanProblemError(str(file), [str(error)]) from None
    return parse_problem(text, str(file))
