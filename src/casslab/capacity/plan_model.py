"""Seed 003's adaptation model as a mixed-integer linear program (pure: a problem in,
rows of numbers out; :mod:`casslab.capacity.plan_solve` hands them to HiGHS).

The seed's equations 5, 6 and 9-23 were images and are lost; each one below is rebuilt
from the seed's prose (quoted in ``docs/capacity-plan.md``), with its number. Index sets:
tenants i, the VM types j offered to i (those with throughput for its workload),
machines h.

Variables (eq. 22-23, the "structural constraints"):
  x[i,j,h] integer in [0, U_jh]   virtual nodes of tenant i, type j, on machine h, where
                                  U_jh = min(floor(C_h / c_j), floor(M_h / m_j)) (what h
                                  holds of j alone; 0: no variable)
  y[i,j]   binary                 tenant i runs type j
  s[i,h]   binary                 tenant i has a node on machine h
  w[i,j,q] binary                 tenant i has a count in the q-th interval of counts
                                  whose throughput meets T_i^min (eq. 11)
  r[h]     binary                 machine h is on
and n[i,j] = sum_h x[i,j,h] is an expression (the seed's unnumbered n_i = sum_{j,h} x_{i,j,h}
that follows its eq. 5; eq. 5 itself, the nodes the data needs, is imposed by (12)).

Constraints (``Family`` names the ones the infeasibility diagnosis relaxes):
  (11) throughput   sum_q w[i,j,q] = y[i,j]; sum_q lo_q w[i,j,q] <= n[i,j] <= sum_q hi_q w[i,j,q]
                    where [lo_q, hi_q] are the maximal runs of counts n with t(n) >= T_i^min
                    (:func:`~casslab.capacity.throughput.allowed_counts`); exact for any
                    shape of t, concave or not, because n is a bounded integer
  (12) data         n[i,j] >= ceil(D_i r_i / heapsize_j) y[i,j]
  (13) one type     sum_j y[i,j] = 1
  (14)              y[i,j] <= n[i,j] <= N_ij y[i,j], N_ij = sum_h U_jh: no node of a type
                    not chosen, at least one of the type chosen
  (15) CPU          sum_{i,j} c_j x[i,j,h] <= C_h r[h]
  (16) memory       sum_{i,j} m_j x[i,j,h] <= M_h r[h]
  (17) replicas     sum_h s[i,h] >= D_i
  (18), (19)        s[i,h] <= sum_j x[i,j,h] <= S_ih s[i,h], S_ih = max_j U_jh
  (20), (21)        s[i,h] <= r[h] for each i; r[h] <= sum_i s[i,h]
Objective, eq. 8-10: minimise P(x) = sum_h r[h] P_h(x), P_h = k_h Pmax_h + (1 - k_h) Pmax_h
U_h with U_h = sum_{i,j} c_j x[i,j,h] / C_h (eq. 9); as U_h = 0 when r[h] = 0, that is
the linear sum_h (k_h Pmax_h r[h] + (1 - k_h) Pmax_h / C_h sum_{i,j} c_j x[i,j,h]).

Not in the seed, and not changing the optimum: identical machines (same CPUs, memory,
Pmax, k) are filled in the order given, each carrying at least the CPUs of the next
(symmetry breaking: any placement can be permuted into that order).
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass, field

from casslab.capacity.deadline import Deadline, OutOfTime
from casslab.capacity.problem import PlanProblem
from casslab.capacity.throughput import allowed_counts, exact, nodes_for_data

Key = tuple[str, ...]
"""A variable's name: ("x", tenant, type, machine), ("y", tenant, type), ("s", tenant,
machine), ("w", tenant, type, interval), ("r", machine)."""


class Family(enum.StrEnum):
    """A family of constraints the diagnosis can drop, one at a time."""

    THROUGHPUT = "throughput"  # eq. 11
    DATA = "data"  # eq. 12
    CPU = "cpu"  # eq. 15
    MEMORY = "memory"  # eq. 16
    REPLICAS = "replicas"  # eq. 17


@dataclass(frozen=True)
class Row:
    """low <= sum(coefficient * variable) <= high; ``equation`` names its seed equation."""

    coefficients: dict[int, float]
    low: float
    high: float
    equation: str


@dataclass
class Model:
    """The MILP: variables (objective coefficient, bounds, all integer) and rows."""

    keys: list[Key] = field(default_factory=list)
    objective: list[float] = field(default_factory=list)
    upper: list[float] = field(default_factory=list)
    rows: list[Row] = field(default_factory=list)
    index: dict[Key, int] = field(default_factory=dict)

    def add(self, key: Key, upper: float, cost: float = 0.0) -> int:
        """A new integer variable in [0, upper]; its column."""
        self.index[key] = len(self.keys)
        self.keys.append(key)
        self.objective.append(cost)
        self.upper.append(upper)
        return self.index[key]

    def row(self, terms: dict[int, float], low: float, high: float, equation: str) -> None:
        """Add ``low <= terms <= high``."""
        self.rows.append(Row(terms, low, high, equation))


def capacity(problem: PlanProblem, vm_type: str, machine: str, drop: frozenset[Family]) -> int:
    """U_jh: how many nodes of ``vm_type`` machine ``machine`` holds alone, by the CPU
    and memory families not dropped."""
    spec = problem.vm_types[vm_type]
    host = problem.machine(machine)
    limits = []
    if Family.CPU not in drop:
        limits.append(math.floor(exact(host.cpus) / exact(spec.cpus)))
    if Family.MEMORY not in drop:
        limits.append(math.floor(exact(host.memory_gib) / exact(spec.memory_gib)))
    if not limits:
        raise ValueError("capacity: CPU and memory cannot both be dropped")
    return min(limits)


def _sum(terms: dict[int, float], column: int, value: float) -> None:
    terms[column] = terms.get(column, 0.0) + value


def build_model(
    problem: PlanProblem,
    drop: frozenset[Family] = frozenset(),
    *,
    minimise_power: bool = True,
    deadline: Deadline | None = None,
) -> Model:
    """The MILP of ``problem`` without the families in ``drop``; with
    ``minimise_power=False`` a feasibility problem (objective 0). Past ``deadline`` (checked
    after each tenant) raises :class:`~casslab.capacity.deadline.OutOfTime`."""
    model = Model()
    bounds: dict[tuple[str, str], int] = {}  # U_jh, the same for every tenant
    machines = [m.name for m in problem.machines]
    cpu_terms: dict[str, dict[int, float]] = {h: {} for h in machines}
    memory_terms: dict[str, dict[int, float]] = {h: {} for h in machines}
    hosted: dict[str, list[int]] = {h: [] for h in machines}  # s[i,h] columns per machine
    for machine in problem.machines:
        cost = machine.k * machine.pmax_w if minimise_power else 0.0
        model.add(("r", machine.name), 1, cost)
    for done, (tenant_name, tenant) in enumerate(problem.tenants.items()):
        if deadline is not None and deadline.passed():
            raise OutOfTime(done, len(problem.tenants), len(model.keys))
        one_type: dict[int, float] = {}
        per_machine: dict[str, dict[int, float]] = {h: {} for h in machines}
        most_on: dict[str, int] = dict.fromkeys(machines, 0)
        for vm_type in problem.types_of(tenant_name):
            spec = problem.vm_types[vm_type]
            y = model.add(("y", tenant_name, vm_type), 1)
            one_type[y] = 1.0
            nodes: dict[int, float] = {}  # n[i,j]
            for machine in problem.machines:
                bound = bounds.get((vm_type, machine.name), -1)
                if bound < 0:
                    bound = capacity(problem, vm_type, machine.name, drop)
                    bounds[(vm_type, machine.name)] = bound
                if bound <= 0:
                    continue
                watts_per_cpu = (1 - machine.k) * machine.pmax_w / machine.cpus
                cost = watts_per_cpu * spec.cpus if minimise_power else 0.0
                x = model.add(("x", tenant_name, vm_type, machine.name), bound, cost)
                nodes[x] = 1.0
                per_machine[machine.name][x] = 1.0
                most_on[machine.name] = max(most_on[machine.name], bound)
                _sum(cpu_terms[machine.name], x, spec.cpus)
                _sum(memory_terms[machine.name], x, spec.memory_gib)
            most = sum(model.upper[x] for x in nodes)
            model.row({**nodes, y: -most}, -math.inf, 0, "14")  # n <= N_ij y
            model.row({**nodes, y: -1.0}, 0, math.inf, "14")  # n >= y: one node at least
            if Family.DATA not in drop:
                needed = nodes_for_data(tenant.rf, tenant.data_gib, spec.heap_gib)
                model.row({**nodes, y: -float(needed)}, 0, math.inf, "12")
            if Family.THROUGHPUT not in drop:
                _throughput_rows(model, problem, tenant_name, vm_type, nodes, y, int(most))
        model.row(one_type, 1, 1, "13")
        replicas: dict[int, float] = {}
        for machine_name in machines:
            if not per_machine[machine_name]:
                continue
            s = model.add(("s", tenant_name, machine_name), 1)
            replicas[s] = 1.0
            hosted[machine_name].append(s)
            model.row({s: 1.0} | {x: -1.0 for x in per_machine[machine_name]}, -math.inf, 0, "18")
            link = {**per_machine[machine_name], s: -float(most_on[machine_name])}
            model.row(link, -math.inf, 0, "19")
        if Family.REPLICAS not in drop:
            model.row(replicas, tenant.rf, math.inf, "17")
    for machine in problem.machines:
        r = model.index[("r", machine.name)]
        if Family.CPU not in drop:
            model.row({**cpu_terms[machine.name], r: -machine.cpus}, -math.inf, 0, "15")
        if Family.MEMORY not in drop:
            model.row({**memory_terms[machine.name], r: -machine.memory_gib}, -math.inf, 0, "16")
        for s in hosted[machine.name]:
            model.row({s: 1.0, r: -1.0}, -math.inf, 0, "20")
        model.row({r: 1.0} | {s: -1.0 for s in hosted[machine.name]}, -math.inf, 0, "21")
    _symmetry_rows(model, problem, cpu_terms)
    return model


def _throughput_rows(
    model: Model,
    problem: PlanProblem,
    tenant: str,
    vm_type: str,
    nodes: dict[int, float],
    y: int,
    most: int,
) -> None:
    """Eq. 11 for (tenant, type): n[i,j] in one of the runs of counts meeting T_i^min."""
    runs = allowed_counts(problem.points(tenant, vm_type), problem.tenants[tenant].min_ops, most)
    pick: dict[int, float] = {y: -1.0}
    low: dict[int, float] = dict(nodes)
    high: dict[int, float] = dict(nodes)
    for number, (first, last) in enumerate(runs):
        w = model.add(("w", tenant, vm_type, str(number)), 1)
        pick[w] = 1.0
        low[w] = -float(first)
        high[w] = -float(last)
    model.row(pick, 0, 0, "11")  # sum_q w = y (no run: y = 0)
    model.row(low, 0, math.inf, "11")
    model.row(high, -math.inf, 0, "11")


def _symmetry_rows(
    model: Model, problem: PlanProblem, cpu_terms: dict[str, dict[int, float]]
) -> None:
    """Identical machines carry non-increasing CPU loads in the problem's order."""
    last_of_kind: dict[tuple[float, float, float, float], str] = {}
    for machine in problem.machines:
        kind = (machine.cpus, machine.memory_gib, machine.pmax_w, machine.k)
        before = last_of_kind.get(kind)
        last_of_kind[kind] = machine.name
        if before is None:
            continue
        terms = dict(cpu_terms[before])
        for column, value in cpu_terms[machine.name].items():
            _sum(terms, column, -value)
        model.row(terms, 0, math.inf, "symmetry")
