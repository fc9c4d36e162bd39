"""Split one workload into the disjoint shares of N load clients (pure).

``split(spec, n)`` gives N :class:`~casslab.engine_contract.workload_spec.WorkloadSpec`\\ s whose
load adds up to ``spec``'s (docs/clients.md):

* open loop: each client runs at ``rate_per_s / N``; ``max_in_flight`` is split with the
  remainder to the first clients (N above it is refused);
* closed loop: ``threads`` split the same way (N above the threads is refused); a thread
  ramp cannot be split (each client would ramp on its own) and is refused for N > 1;
* ``stop.ops`` split so the shares add up to the total (remainder to the first clients);
  ``stop.duration_s`` and ``warmup_s`` are every client's;
* a ``seq`` key distribution (the workload's or an operation's) becomes contiguous
  sub-ranges: with ``stop.ops`` at most the range's size, client *i* gets exactly the keys
  the single run's cycles of its share would have visited (``n=4000 -pop seq=1..4000``:
  every key written exactly once); otherwise the range is cut into N near-equal parts;
* other key distributions keep their range; each client draws its own operation
  sequence (``seed`` derived from the run's seed, N and the client's index: the same seed
  and N give the same shares) and keeps the run's ``data_seed``, so reads validate what
  any client wrote;
* each client writes its own output: ``output.hdr_log`` ``x.hlog`` becomes
  ``x.client-<i>.hlog`` beside it (:func:`client_file`);
* the schema statements run once, before the clients (:attr:`Shares.schema_run`): N clients
  creating (or truncating) the same tables at once would race.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from casslab.engine_contract.workload_spec import (
    ClosedLoop,
    DistKind,
    Distribution,
    OpenLoop,
    Operation,
    OpKind,
    Statement,
    Stop,
    ThreadRamp,
    WorkloadSpec,
)
from casslab.errors import WorkloadSyntaxError
from casslab.record import Record

SEED_LIMIT = 2**63  # the engine's i64
SCHEMA_PROBE_CQL = "SELECT release_version FROM system.local"


class Shares(Record):
    """The specs of one multi-client run: ``schema_run`` runs first (alone) when the workload
    has schema statements; then every spec of ``clients`` at once."""

    schema_run: WorkloadSpec | None
    clients: list[WorkloadSpec]


def client_name(index: int) -> str:
    """The name of client ``index`` (0-based) in messages, directories and files."""
    return f"client-{index}"


def client_file(path: str, index: int) -> str:
    """``path`` for client ``index``: ``run/lat.hlog`` -> ``run/lat.client-0.hlog``."""
    target = Path(path)
    return str(target.with_name(f"{target.stem}.{client_name(index)}{target.suffix}"))


def parts(total: int, n: int) -> list[int]:
    """``total`` cut into ``n`` near-equal parts that add up to it, larger parts first."""
    base, extra = divmod(total, n)
    return [base + (1 if i < extra else 0) for i in range(n)]


def client_seed(seed: int, n: int, index: int) -> int:
    """The operation-sequence seed of client ``index`` of ``n``: a pure function of the
    three, below 2**63, distinct across the clients of one run."""
    digest = hashlib.sha256(f"casslab-client-seed:{seed}:{n}:{index}".encode()).digest()
    return int.from_bytes(digest[:8], "big") % SEED_LIMIT


def _check_count(n: int) -> None:
    if n < 1:
        raise WorkloadSyntaxError(
            f"--clients {n}: the number of load clients must be at least 1; give --clients 2 "
            "or more to split the load, or leave it out for one client"
        )


def _split_rate(spec: WorkloadSpec, n: int) -> list[OpenLoop | ClosedLoop]:
    rate = spec.rate
    if isinstance(rate, ThreadRamp):
        raise WorkloadSyntaxError(
            f"--clients {n}: a thread ramp (threads>=, threads<= or no -rate) cannot be split "
            "across clients, each would ramp on its own; give -rate threads=N or an open-loop "
            "rate (-rate fixed=R/s), or run one client"
        )
    if isinstance(rate, ClosedLoop):
        if n > rate.threads:
            raise WorkloadSyntaxError(
                f"--clients {n}: more clients than threads ({rate.threads}); each client "
                f"needs at least one thread: give -rate threads={n} or more, or fewer clients"
            )
        return [ClosedLoop(threads=t) for t in parts(rate.threads, n)]
    if n > rate.max_in_flight:
        raise WorkloadSyntaxError(
            f"--clients {n}: more clients than requests in flight ({rate.max_in_flight}); "
            f"give -rate threads={n} or more with the rate, or fewer clients"
        )
    return [
        OpenLoop(rate_per_s=rate.rate_per_s / n, max_in_flight=flight)
        for flight in parts(rate.max_in_flight, n)
    ]


def _split_stops(stop: Stop, n: int) -> list[Stop]:
    if stop.ops is None:
        return [stop] * n
    if stop.ops < n:
        raise WorkloadSyntaxError(
            f"--clients {n}: n={stop.ops} operations cannot give each of {n} clients one; "
            "give more operations or fewer clients"
        )
    return [stop.model_copy(update={"ops": ops}) for ops in parts(stop.ops, n)]


def split_seq(keys: Distribution, ops: int | None, n: int) -> list[Distribution]:
    """A ``seq`` distribution's contiguous, disjoint sub-ranges, one per client.

    When ``ops`` (the whole run's operation count) fits the range, client *i* gets the keys
    the single run's cycles ``start_i .. start_i + ops_i - 1`` visit; otherwise the whole
    range in near-equal parts (each client then wraps within its own part).
    """
    span = keys.max - keys.min + 1
    sizes = parts(ops, n) if ops is not None and ops <= span else parts(span, n)
    if min(sizes) < 1:
        raise WorkloadSyntaxError(
            f"--clients {n}: the sequence {keys.min}..{keys.max} has {span} key(s), fewer "
            "than the clients; give a longer -pop seq= range or fewer clients"
        )
    out: list[Distribution] = []
    start = keys.min
    for size in sizes:
        out.append(keys.model_copy(update={"min": start, "max": start + size - 1}))
        start += size
    return out


def _keys_per_client(keys: Distribution, ops: int | None, n: int) -> list[Distribution]:
    if keys.kind is DistKind.SEQ:
        return split_seq(keys, ops, n)
    return [keys] * n


def _schema_spec(spec: WorkloadSpec) -> WorkloadSpec | None:
    """A run of the schema statements alone: one read of ``system.local`` after them."""
    if not spec.schema_cql:
        return None
    probe = Operation(
        name="schema",
        kind=OpKind.CQL,
        weight=1.0,
        statements=[Statement(cql=SCHEMA_PROBE_CQL)],
    )
    return spec.model_copy(
        update={
            "operations": [probe],
            "keys": Distribution(kind=DistKind.FIXED, min=0, max=0),
            "rate": ClosedLoop(threads=1),
            "stop": Stop(ops=1),
            "warmup_s": 0.0,
            "validate_reads": False,
            "output": spec.output.model_copy(update={"hdr_log": None}),
        }
    )


def split(spec: WorkloadSpec, n: int) -> Shares:
    """The shares of ``n`` clients (see the module). One client: the spec as it is.

    Raises :class:`~casslab.errors.WorkloadSyntaxError` naming the value and the fix for
    ``n`` below 1, a thread ramp, more clients than threads (or requests in flight), than
    operations, or than keys of a ``seq`` range.
    """
    _check_count(n)
    if n == 1:
        return Shares(schema_run=None, clients=[spec])
    rates = _split_rate(spec, n)
    stops = _split_stops(spec.stop, n)
    keys = _keys_per_client(spec.keys, spec.stop.ops, n)
    per_op = [
        _keys_per_client(op.keys, spec.stop.ops, n) if op.keys else None for op in spec.operations
    ]
    clients: list[WorkloadSpec] = []
    for i in range(n):
        operations = [
            op if op_keys is None else op.model_copy(update={"keys": op_keys[i]})
            for op, op_keys in zip(spec.operations, per_op, strict=True)
        ]
        hdr = spec.output.hdr_log
        output = spec.output.model_copy(
            update={"hdr_log": client_file(hdr, i) if hdr else None, "jsonl": None}
        )
        clients.append(
            spec.model_copy(
                update={
                    "rate": rates[i],
                    "stop": stops[i],
                    "keys": keys[i],
                    "operations": operations,
                    "seed": client_seed(spec.seed, n, i),
                    "schema_cql": [],
                    "output": output,
                }
            )
        )
    return Shares(schema_run=_schema_spec(spec), clients=clients)
