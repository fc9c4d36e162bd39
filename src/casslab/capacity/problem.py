"""The records of a capacity-planning problem (seed 003's adaptation model): physical
machines, VM types, tenants and the measured throughput table. Pure data; reading and
checking a problem file is :mod:`casslab.capacity.problem_load`.

The seed's symbols, for the docs and the model (``docs/capacity-plan.md``):

=================  =====================================  ==============================
seed               here                                   meaning
=================  =====================================  ==============================
h ∈ H              ``Machine`` (``name``)                 a physical machine
C_h, M_h           ``Machine.cpus``, ``.memory_gib``      its CPUs and memory
P_h^max, k_h       ``Machine.pmax_w``, ``.k``             power at full load; idle share
j ∈ V              ``VmType`` (its key)                   a VM configuration
c_j, m_j           ``VmType.cpus``, ``.memory_gib``       its vCPUs and memory
heapsize_j         ``VmType.heap_gib``                    Cassandra's heap in it
i ∈ I              ``Tenant`` (its key)                   an application (tenant)
l_i                ``Tenant.workload``                    its workload (a throughput row)
T_i^min            ``Tenant.min_ops``                     its minimum throughput, ops/s
D_i                ``Tenant.rf``                          its replication factor
r_i                ``Tenant.data_gib``                    its data set, GiB
t(n) points        ``PlanProblem.throughput``             measured ops/s on n vnodes
=================  =====================================  ==============================
"""

from __future__ import annotations

from typing import Final, Literal

from pydantic import ConfigDict, Field

from casslab.errors import ConfigError, DocumentProblemsError
from casslab.record import Record

SCHEMA_VERSION: Final[Literal[1]] = 1


class PlanProblemError(DocumentProblemsError, ConfigError):
    """A capacity problem file has problems; ``problems`` lists each as ``<path>: <message>``."""

    subject = "capacity problem"


class _Finite(Record):
    """A record whose numbers are finite: ``.inf`` or ``.nan`` in a problem file is refused
    by name instead of reaching the solver."""

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)


class Machine(_Finite):
    """A physical machine h: C_h CPUs, M_h GiB, and its linear power model (eq. 8)."""

    name: str = Field(min_length=1)
    cpus: float = Field(gt=0)
    memory_gib: float = Field(gt=0)
    pmax_w: float = Field(ge=0)  # P_h^max: the power at 100% CPU
    k: float = Field(ge=0, le=1)  # k_h: the share of P_h^max an idle machine draws


class MachinePool(_Finite):
    """``machines: {count: 8, cpus: 8, ...}``: ``count`` identical machines m1..mN."""

    count: int = Field(ge=1)
    cpus: float = Field(gt=0)
    memory_gib: float = Field(gt=0)
    pmax_w: float = Field(ge=0)
    k: float = Field(ge=0, le=1)

    def expand(self) -> tuple[Machine, ...]:
        """The pool's machines, named ``m1`` .. ``mN``."""
        return tuple(
            Machine(
                name=f"m{number}",
                cpus=self.cpus,
                memory_gib=self.memory_gib,
                pmax_w=self.pmax_w,
                k=self.k,
            )
            for number in range(1, self.count + 1)
        )


class VmType(_Finite):
    """A VM configuration j that runs one Cassandra virtual node."""

    cpus: float = Field(gt=0)
    memory_gib: float = Field(gt=0)
    heap_gib: float = Field(gt=0)


class Tenant(_Finite):
    """A tenant i's service level agreement {l_i, T_i^min, D_i, r_i}."""

    workload: str = Field(min_length=1)
    min_ops: float = Field(ge=0)
    rf: int = Field(ge=1)
    data_gib: float = Field(ge=0)


ThroughputPoints = dict[int, float]
"""Measured ops/s of one workload on ``n`` virtual nodes of one VM type: ``{3: 2795, 6: 7899}``."""

ThroughputTable = dict[str, dict[str, ThroughputPoints]]
"""workload -> VM type -> nodes -> ops/s. A type missing under a workload is not offered
to that workload's tenants."""


class PlanProblem(_Finite):
    """A whole problem, machines expanded: what the planner, the enumerator and the
    checker take."""

    schema_version: Literal[1] = SCHEMA_VERSION
    machines: tuple[Machine, ...] = Field(min_length=1)
    vm_types: dict[str, VmType] = Field(min_length=1)
    tenants: dict[str, Tenant] = Field(min_length=1)
    throughput: ThroughputTable

    def machine(self, name: str) -> Machine:
        """The machine called ``name`` (KeyError if none)."""
        for machine in self.machines:
            if machine.name == name:
                return machine
        raise KeyError(name)

    def types_of(self, tenant: str) -> list[str]:
        """The VM types offered to ``tenant``: those with throughput for its workload, in
        the order of ``vm_types``."""
        rows = self.throughput.get(self.tenants[tenant].workload, {})
        return [name for name in self.vm_types if name in rows]

    def points(self, tenant: str, vm_type: str) -> dict[int, float]:
        """The measured throughput points of ``tenant``'s workload on ``vm_type``."""
        return self.throughput[self.tenants[tenant].workload][vm_type]

    def without_tenant(self, tenant: str) -> PlanProblem:
        """The same problem less ``tenant`` (for the infeasibility diagnosis)."""
        tenants = {name: t for name, t in self.tenants.items() if name != tenant}
        return self.model_copy(update={"tenants": tenants})
