"""Build the engine :class:`WorkloadSpec` from a parsed :class:`StressCommand`.

cassandra-stress semantics reproduced here:

* population: ``-pop`` when given; otherwise ``seq=1..N`` for write / counter_write (and a
  user command that only inserts) and ``GAUSSIAN(1..N)`` (mean N/2, stdev N/6) for the
  rest, where N is ``n=`` or 1,000,000;
* rate: ``-rate`` when given; otherwise 200 threads for write / counter_write with ``n=``
  and the auto thread ramp (4 .. 1000 threads) for everything else. ``throttle=`` and
  ``fixed=`` are open loop (latency from the intended start);
* stop: ``n=`` or ``duration=`` (stress refuses both; so does the parser); with neither,
  stress runs until the op-rate standard error falls below ``err<`` (at least ``n>`` = 30
  intervals): casslab has no such rule and runs ``n>`` intervals instead (the ramp decides
  its own end). ``-pop seq=A..B no-wrap`` also stops after the B-A+1 keys;
* schema: ``keyspace1.standard1`` and ``counter1`` as stress creates them, with the
  ``-schema`` and ``-col`` settings, then ``TRUNCATE`` of the tables used for
  ``truncate=once|always`` (for a ``user`` profile too). stress (``StressAction.run``)
  truncates ``once`` after its warm-up, just before the measured run, and ``always`` also
  before each thread count of a ramp; casslab's stress runs have no warm-up phase and
  truncate before the load, so ``always`` with a ramp truncates once
  (:func:`truncate_note` says so); reads validate the row a write stored unless
  ``-errors skip-read-validation``.
"""

from __future__ import annotations

import re
from pathlib import Path

from casslab.cql_text import quote_identifier
from casslab.engine_contract.workload_spec import (
    ClosedLoop,
    Connection,
    DistKind,
    Distribution,
    Generator,
    GenKind,
    OpenLoop,
    Operation,
    OpKind,
    Output,
    Rate,
    Statement,
    Stop,
    ThreadRamp,
    VectorFiles,
    WorkloadSpec,
)
from casslab.errors import WorkloadSyntaxError
from casslab.load import defaults
from casslab.load.stress.credentials_file import StressCredentials, read_credentials
from casslab.load.stress.model import StressCommand, StressCommandKind, Truncate
from casslab.load.stress.profile import StressProfile, apply_insert_options, load_profile
from casslab.load.stress.profile_set import profile_paths, set_operations, set_schema
from casslab.load.stress.profile_vectors import vector_files
from casslab.load.stress.token_ranges import with_walk
from casslab.load.stress.truststore import ca_file, store_path
from casslab.workloads.named import profile_location

_WRITES = (StressCommandKind.WRITE, StressCommandKind.COUNTER_WRITE)


def default_population(command: StressCommand, *, insert_only: bool = False) -> Distribution:
    """The key distribution stress uses when ``-pop`` is absent."""
    limit = command.ops_count or defaults.STRESS_DEFAULT_OPS
    if command.kind in _WRITES or insert_only:
        return Distribution(kind=DistKind.SEQ, min=1, max=limit)
    mean = (1 + limit) / 2
    return Distribution(kind=DistKind.GAUSSIAN, min=1, max=limit, mean=mean, stdev=(mean - 1) / 3)


def stress_thread_steps(low: int, high: int) -> list[int]:
    """cassandra-stress's auto-mode concurrency sequence from ``low`` to ``high``: double
    below 16 threads, then grow by half (4, 8, 16, 24, 36, 54, 81, 121, ..., 406, 609)."""
    steps: list[int] = []
    threads = low
    while threads <= high:
        steps.append(threads)
        threads = threads * 2 if threads < 16 else threads * 3 // 2
    return steps


def rate_of(command: StressCommand) -> Rate:
    rate = command.rate
    if rate is None:
        if command.kind in _WRITES and command.ops_count is not None:
            return ClosedLoop(threads=defaults.STRESS_WRITE_THREADS)
        low, high = defaults.STRESS_RAMP_MIN_THREADS, defaults.STRESS_RAMP_MAX_THREADS
        return ThreadRamp(min=low, max=high, steps=stress_thread_steps(low, high))
    per_s = rate.fixed_per_s or rate.throttle_per_s
    if per_s is not None:
        if rate.threads is None:
            return OpenLoop(rate_per_s=per_s)
        return OpenLoop(rate_per_s=per_s, max_in_flight=rate.threads)
    if rate.threads is not None:
        return ClosedLoop(threads=rate.threads)
    low = rate.threads_min or defaults.STRESS_RAMP_MIN_THREADS
    high = rate.threads_max or max(low, defaults.STRESS_RAMP_MAX_THREADS)
    high = max(low, high)
    return ThreadRamp(min=low, max=high, steps=stress_thread_steps(low, high))


def stop_of(command: StressCommand, keys: Distribution, rate: Rate) -> Stop:
    ops = command.ops_count
    if command.population is not None and command.population.no_wrap:
        span = keys.max - keys.min + 1
        ops = span if ops is None else min(ops, span)
    if ops is None and command.duration_s is None:
        if isinstance(rate, ThreadRamp):
            return Stop()
        return Stop(duration_s=command.min_measurements * command.log.interval_s)
    return Stop(ops=ops, duration_s=command.duration_s)


def _quote(name: str) -> str:
    return quote_identifier(name)


def predefined_operations(command: StressCommand) -> list[Operation]:
    """write / read / counter_write / counter_read operations on keyspace1's tables."""
    keyspace = _quote(command.schema_settings.keyspace)
    names = command.columns.names
    cols = ", ".join(_quote(c) for c in names)
    key = Generator(
        kind=GenKind.KEY_BLOB,
        column="key",
        size=Distribution(kind=DistKind.FIXED, min=command.key_size, max=command.key_size),
    )
    values = [Generator(kind=GenKind.BLOB, column=c, size=command.columns.size) for c in names]
    deltas = [
        Generator(kind=GenKind.COUNTER_DELTA, column=c, values=command.counter_add, per_key=False)
        for c in names
    ]
    marks = ", ".join("?" for _ in names)
    standard = f"{keyspace}.{defaults.STRESS_TABLE}"
    counter = f"{keyspace}.{defaults.STRESS_COUNTER_TABLE}"
    statements = {
        "write": Statement(
            cql=f"INSERT INTO {standard} (key, {cols}) VALUES (?, {marks})", binds=[key, *values]
        ),
        "read": Statement(cql=f"SELECT {cols} FROM {standard} WHERE key = ?", binds=[key]),
        "counter_write": Statement(
            cql=f"UPDATE {counter} SET "
            + ", ".join(f"{_quote(c)} = {_quote(c)} + ?" for c in names)
            + " WHERE key = ?",
            binds=[*deltas, key],
        ),
        "counter_read": Statement(cql=f"SELECT {cols} FROM {counter} WHERE key = ?", binds=[key]),
    }
    kinds = {
        "write": OpKind.WRITE,
        "read": OpKind.READ,
        "counter_write": OpKind.COUNTER_WRITE,
        "counter_read": OpKind.COUNTER_READ,
    }
    weights = (
        command.ratio if command.kind is StressCommandKind.MIXED else {command.kind.value: 1.0}
    )
    return [
        Operation(
            name=name,
            kind=kinds[name],
            weight=weight,
            statements=[statements[name]],
            consistency=command.consistency,
            validate_columns=values if name == "read" else [],
            idempotent=name != "counter_write",
        )
        for name, weight in weights.items()
    ]


def truncate_cql(command: StressCommand, operations: list[Operation]) -> list[str]:
    """``truncate=once|always``: empty the tables the operations touch before the load
    (casslab runs one measured phase, so ``always`` truncates once as well)."""
    tables: list[str] = []
    for operation in operations:
        for statement in operation.statements:
            match = re.search(r"\b(?:FROM|INTO|UPDATE)\s+([\w\".]+)", statement.cql, re.I)
            if match and match.group(1) not in tables:
                tables.append(match.group(1))
    return [f"TRUNCATE {table}" for table in tables]


def truncate_note(command: StressCommand, rate: Rate) -> str | None:
    """A note when ``truncate=always`` means less here than in stress (module docstring)."""
    if command.truncate is not Truncate.ALWAYS or not isinstance(rate, ThreadRamp):
        return None
    return (
        "truncate=always: cassandra-stress empties the tables before each thread count of"
        " a ramp; casslab empties them once, before the ramp (as truncate=once); give"
        " -rate threads=N to run one thread count, emptied before it"
    )


def command_profiles(
    command: StressCommand, profile_dir: Path | None
) -> list[tuple[StressProfile, str]]:
    """The profiles of ``profile=a.yaml[,b.yaml...]`` (or ``@NAME`` of the catalog of named
    workloads, :mod:`casslab.workloads.named`), each with its path (or ``@NAME``)."""
    if command.profile is None:
        raise WorkloadSyntaxError("user: profile=FILE is required")
    profiles = []
    for value in profile_paths(command.profile):
        path = profile_location(value, profile_dir)
        profiles.append((load_profile(path), value if value.startswith("@") else str(path)))
    return profiles


def build_spec(
    command: StressCommand,
    connection: Connection,
    *,
    seed: int = 0,
    data_seed: int = 0,
    output: Output | None = None,
    profile_dir: Path | None = None,
    profile: StressProfile | None = None,
) -> WorkloadSpec:
    """The engine spec for ``command`` (the module docstring lists the semantics).

    ``seed`` draws the operation sequence, ``data_seed`` the values written and validated
    (see :mod:`casslab.engine_contract.workload_spec`)."""
    keyspace: str | None
    if command.kind is StressCommandKind.USER:
        profiles = (
            command_profiles(command, profile_dir)
            if profile is None
            else [(profile, command.profile or "<profile>")]
        )
        profiles = [
            (apply_insert_options(p, command.insert, source=source), source)
            for p, source in profiles
        ]
        operations = set_operations(
            profiles,
            command.ops,
            command.consistency,
            serial_consistency=command.serial_consistency,
        )
        operations = with_walk(operations, command.token_range)
        schema = set_schema(profiles)
        keyspace = profiles[0][0].keyspace
        keys_max = (
            command.population.dist
            if command.population is not None
            else default_population(command, insert_only=True)
        ).max
        vectors = _vectors(profiles, operations, keys_max, command.vectors_loaded)
        insert_only = all(name.rpartition(".")[2] == "insert" for name in command.ops)
        validate = (
            any(op.validate_columns for op in operations)
            and not command.errors.skip_read_validation
        )
    else:
        operations = predefined_operations(command)
        settings = command.schema_settings
        schema = defaults.stress_schema_cql(
            keyspace=settings.keyspace,
            columns=command.columns.names,
            replication_strategy=settings.replication_strategy,
            replication_options=settings.replication_options,
            compaction_strategy=settings.compaction_strategy,
            compaction_options=settings.compaction_options,
            compression=settings.compression,
        )
        keyspace = settings.keyspace
        vectors = None
        insert_only = False
        validate = (
            any(op.kind is OpKind.READ for op in operations)
            and not command.errors.skip_read_validation
        )
    if command.truncate is not Truncate.NEVER:
        schema = [*schema, *truncate_cql(command, operations)]
    keys = (
        command.population.dist
        if command.population is not None
        else default_population(command, insert_only=insert_only)
    )
    rate = rate_of(command)
    updates: dict[str, object] = {}
    if command.errors.retries is not None:
        updates["retries"] = command.errors.retries
    login = _login(command, profile_dir)
    if login.cql_username is not None and connection.username is None:
        updates["username"] = login.cql_username
        updates["password"] = login.cql_password
        updates["password_env"] = command.mode.password_env
    if command.datacenter is not None and connection.local_dc is None:
        updates["local_dc"] = command.datacenter
    if command.transport.truststore is not None and connection.tls_ca_file is None:
        store = store_path(command.transport.truststore, profile_dir)
        updates["tls"] = True
        updates["tls_ca_file"] = str(ca_file(store, login.truststore_password))
    return WorkloadSpec(
        connection=connection.model_copy(update=updates),
        schema_cql=schema,
        keyspace=keyspace,
        operations=operations,
        keys=keys,
        rate=rate,
        stop=stop_of(command, keys, rate),
        seed=seed,
        data_seed=data_seed,
        validate_reads=validate,
        output=output or Output(interval_s=command.log.interval_s, hdr_log=command.log.hdrfile),
        vectors=vectors,
    )


def _vectors(
    profiles: list[tuple[StressProfile, str]],
    operations: list[Operation],
    keys_max: int,
    loaded: int | None,
) -> VectorFiles | None:
    """The dataset of the run's vector profile (one at most: the engine reads one);
    ``loaded`` (``-vectors loaded=N``) over the profile's ``vectors: loaded:``."""
    with_vectors = [(p, s) for p, s in profiles if p.vectors is not None]
    if not with_vectors:
        if loaded is not None:
            names = ", ".join(s for _, s in profiles)
            raise WorkloadSyntaxError(
                f"-vectors loaded={loaded}: profile {names} has no vectors: section, so "
                "no vector dataset is loaded; drop -vectors or use a vector profile"
            )
        return None
    if len(with_vectors) > 1:
        raise WorkloadSyntaxError(
            f"user: profiles {with_vectors[0][1]} and {with_vectors[1][1]} both have vectors:; "
            "a run reads one vector dataset: run them one after the other"
        )
    profile, source = with_vectors[0]
    if loaded is not None and profile.vectors is not None:
        given = profile.vectors.model_copy(update={"loaded": loaded})
        profile = profile.model_copy(update={"vectors": given})
    # a dataset path is relative to its profile's folder
    return vector_files(
        profile, operations, source=source, profile_dir=Path(source).parent, keys_max=keys_max
    )


def _login(command: StressCommand, profile_dir: Path | None) -> StressCredentials:
    """The CQL user and password and the truststore's password: the command line's, each
    missing one from ``-credentials-file`` (as cassandra-stress merges them)."""
    given = StressCredentials(
        cql_username=command.mode.user,
        cql_password=command.mode.password,
        truststore_password=command.transport.truststore_password,
    )
    if command.credentials_file is None:
        return given
    filed = read_credentials(command.credentials_file, profile_dir)
    login = StressCredentials(
        cql_username=given.cql_username or filed.cql_username,
        cql_password=given.cql_password
        or (filed.cql_password if command.mode.password_env is None else None),
        truststore_password=given.truststore_password or filed.truststore_password,
    )
    where = f"-credentials-file {command.credentials_file}"
    if login.cql_username is not None and (
        login.cql_password is None and command.mode.password_env is None
    ):
        raise WorkloadSyntaxError(
            f"{where}: no cql.password for user {login.cql_username!r} (and -mode gives "
            "none); add cql.password=P to the file or password-env=VAR to -mode"
        )
    if login.cql_username is None and login.cql_password is not None:
        raise WorkloadSyntaxError(
            f"{where}: cql.password without cql.username; add cql.username=USER to the "
            "file or user=USER to -mode"
        )
    return login
