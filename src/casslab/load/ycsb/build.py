"""Build the engine :class:`WorkloadSpec` for a YCSB load or run (parsed by :mod:`.parse`)."""

from __future__ import annotations

from casslab.cql_text import quote_identifier
from casslab.engine_contract.workload_spec import (
    ClosedLoop,
    Connection,
    Consistency,
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
    WorkloadSpec,
)
from casslab.errors import WorkloadSyntaxError
from casslab.load import defaults
from casslab.load.ycsb.parse import CoreWorkload, LengthDistribution, YcsbCommand, YcsbPhase


def request_distribution(workload: CoreWorkload) -> Distribution:
    """Key numbers ``0 .. recordcount-1`` drawn by ``requestdistribution``."""
    high = max(workload.recordcount - 1, 0)
    kind = {
        "uniform": DistKind.UNIFORM,
        "zipfian": DistKind.ZIPFIAN,
        "latest": DistKind.LATEST,
        "hotspot": DistKind.HOTSPOT,
        "exponential": DistKind.EXP,
        "sequential": DistKind.SEQ,
    }[workload.requestdistribution]
    return Distribution(
        kind=kind,
        min=0,
        max=high,
        zipf_theta=workload.zipfian_constant,
        hot_fraction=workload.hotspotdatafraction,
        hot_ops_fraction=workload.hotspotopnfraction,
    )


def _length(kind: LengthDistribution, low: int, high: int) -> Distribution:
    if kind == "constant":
        return Distribution(kind=DistKind.FIXED, min=high, max=high)
    dist_kind = DistKind.UNIFORM if kind == "uniform" else DistKind.ZIPFIAN
    return Distribution(kind=dist_kind, min=low, max=high)


def ycsb_operations(workload: CoreWorkload, phase: YcsbPhase) -> list[Operation]:
    """INSERT for load; READ / UPDATE / INSERT / SCAN / READ-MODIFY-WRITE for run."""
    table = f"{quote_identifier(workload.keyspace)}.{workload.table}"
    fields = defaults.ycsb_field_names(workload.fieldcount, workload.fieldnameprefix)
    key = Generator(
        kind=GenKind.KEY_TEXT,
        column=defaults.YCSB_KEY_COLUMN,
        prefix=defaults.YCSB_KEY_PREFIX,
        hashed=workload.insertorder == "hashed",
    )
    size = _length(workload.fieldlengthdistribution, 1, workload.fieldlength)
    stored = [Generator(kind=GenKind.TEXT, column=f, size=size) for f in fields]
    marks = ", ".join("?" for _ in fields)
    insert = Statement(
        cql=f"INSERT INTO {table} ({defaults.YCSB_KEY_COLUMN}, {', '.join(fields)}) "
        f"VALUES (?, {marks})",
        binds=[key, *stored],
    )
    # readallfields=false reads one field and writeallfields=false updates one field,
    # chosen per operation as YCSB does: one statement per field, the operation's weight
    # shared equally (operations of one name report as one).
    read_sets = ["*"] if workload.readallfields else fields
    write_sets = [fields] if workload.writeallfields else [[f] for f in fields]

    def read(selected: str) -> Statement:
        return Statement(
            cql=f"SELECT {selected} FROM {table} WHERE {defaults.YCSB_KEY_COLUMN} = ? LIMIT 1",
            binds=[key],
        )

    def update(written: list[str]) -> Statement:
        fresh = [Generator(kind=GenKind.TEXT, column=f, size=size, per_key=False) for f in written]
        return Statement(
            cql=f"UPDATE {table} SET {', '.join(f'{f} = ?' for f in written)} "
            f"WHERE {defaults.YCSB_KEY_COLUMN} = ?",
            binds=[*fresh, key],
        )

    scan_length = Generator(
        kind=GenKind.SCAN_LENGTH,
        column="limit",
        values=_length(
            workload.scanlengthdistribution, workload.minscanlength, workload.maxscanlength
        ),
        per_key=False,
    )

    def scan(selected: str) -> Statement:
        return Statement(
            cql=f"SELECT {selected} FROM {table} WHERE token({defaults.YCSB_KEY_COLUMN}) >= "
            f"token(?) LIMIT ?",
            binds=[key, scan_length],
        )

    read_cl, write_cl = workload.read_consistency, workload.write_consistency

    def share(
        proportion: float,
        name: str,
        kind: OpKind,
        variants: list[list[Statement]],
        consistency: Consistency,
        keys: Distribution | None = None,
    ) -> list[Operation]:
        """One operation per statement variant, the proportion shared equally."""
        if proportion <= 0:
            return []
        return [
            Operation(
                name=name,
                kind=kind,
                weight=proportion / len(variants),
                statements=statements,
                consistency=consistency,
                keys=keys,
            )
            for statements in variants
        ]

    if phase is YcsbPhase.LOAD:
        return share(1.0, "INSERT", OpKind.WRITE, [[insert]], write_cl)
    new_keys = Distribution(
        kind=DistKind.SEQ,
        min=workload.recordcount,
        max=workload.recordcount + max(workload.operationcount, 1) - 1,
    )
    operations = [
        *share(
            workload.readproportion,
            "READ",
            OpKind.READ,
            [[read(selected)] for selected in read_sets],
            read_cl,
        ),
        *share(
            workload.updateproportion,
            "UPDATE",
            OpKind.WRITE,
            [[update(written)] for written in write_sets],
            write_cl,
        ),
        *share(workload.insertproportion, "INSERT", OpKind.WRITE, [[insert]], write_cl, new_keys),
        *share(
            workload.scanproportion,
            "SCAN",
            OpKind.SCAN,
            [[scan(selected)] for selected in read_sets],
            read_cl,
        ),
        *share(
            workload.readmodifywriteproportion,
            "READ-MODIFY-WRITE",
            OpKind.READ_MODIFY_WRITE,
            [[read(selected), update(written)] for selected in read_sets for written in write_sets],
            write_cl,
        ),
    ]
    if not operations:
        raise WorkloadSyntaxError(
            "YCSB run: every proportion is 0; "
            "set e.g. -p readproportion=0.5 -p updateproportion=0.5"
        )
    return operations


def status_interval_s(command: YcsbCommand) -> float:
    """With ``-s``, intervals last ``status.interval`` seconds (YCSB's default 10)."""
    if not command.status:
        return 1.0
    text = command.properties.get("status.interval", "10")
    try:
        seconds = float(text)
    except ValueError:
        seconds = 0.0
    if seconds <= 0:
        raise WorkloadSyntaxError(f"YCSB -p status.interval={text}: give seconds > 0, e.g. 10")
    return seconds


def build_ycsb_spec(
    command: YcsbCommand,
    connection: Connection,
    *,
    seed: int = 0,
    data_seed: int = 0,
    output: Output | None = None,
) -> WorkloadSpec:
    """The engine spec of a YCSB load or run; ``seed`` draws the operation sequence,
    ``data_seed`` the values written and validated (see
    :mod:`casslab.engine_contract.workload_spec`)."""
    workload = command.workload()
    if command.phase is YcsbPhase.LOAD:
        count = workload.insertcount
        if count is None:
            count = workload.recordcount - workload.insertstart
        if count < 1:
            raise WorkloadSyntaxError(
                f"YCSB load: nothing to insert (recordcount={workload.recordcount}, "
                f"insertstart={workload.insertstart}); set -p recordcount=N"
            )
        keys = Distribution(
            kind=DistKind.SEQ, min=workload.insertstart, max=workload.insertstart + count - 1
        )
        stop = Stop(ops=count, duration_s=workload.maxexecutiontime)
    else:
        if workload.recordcount < 1:
            raise WorkloadSyntaxError("YCSB run: recordcount must be >= 1; set -p recordcount=N")
        if workload.operationcount < 1 and workload.maxexecutiontime is None:
            raise WorkloadSyntaxError(
                "YCSB run: set -p operationcount=N (or maxexecutiontime=SECONDS)"
            )
        keys = request_distribution(workload)
        stop = Stop(ops=workload.operationcount or None, duration_s=workload.maxexecutiontime)
    rate: Rate
    if command.target_per_s is not None:
        rate = OpenLoop(rate_per_s=command.target_per_s, max_in_flight=command.threads)
    else:
        rate = ClosedLoop(threads=command.threads)
    table_fields = defaults.ycsb_field_names(
        max(workload.fieldcount, defaults.YCSB_TABLE_FIELDS), workload.fieldnameprefix
    )
    updates: dict[str, object] = {}
    if "cassandra.username" in command.properties and connection.username is None:
        updates["username"] = command.properties["cassandra.username"]
        updates["password"] = command.properties.get("cassandra.password")
        updates["password_env"] = command.password_env
    return WorkloadSpec(
        connection=connection.model_copy(update=updates),
        schema_cql=defaults.ycsb_schema_cql(
            keyspace=workload.keyspace,
            table=workload.table,
            fields=table_fields,
            replication_factor=workload.replication_factor,
        ),
        keyspace=workload.keyspace,
        operations=ycsb_operations(workload, command.phase),
        keys=keys,
        rate=rate,
        stop=stop,
        seed=seed,
        data_seed=data_seed,
        output=output or Output(interval_s=status_interval_s(command)),
    )
