"""YCSB command lines and core-workload property files, turned into a :class:`WorkloadSpec`.

Accepted command line (YCSB's own)::

    load|run [cassandra-cql] [-P FILE|workloada..workloadf]... [-p key=value]...
             [-threads N] [-target OPS_PER_S] [-s]

``-P`` files are applied in order, then ``-p`` values override them (as YCSB does). The six
core workloads ship in ``casslab/load/ycsb/workloads``; ``-P workloads/workloada`` also finds
them when no such file exists. Credentials: ``-p cassandra.username=U`` with
``-p cassandra.password=P``, or ``-p cassandra.password-env=VAR`` to read the password
from the environment variable ``VAR`` (kept off the command line).

The table is ``ycsb.usertable (y_id varchar PRIMARY KEY, field0..field9 varchar)`` as the
YCSB Cassandra binding documents; keys are ``user`` + the key number (FNV-hashed when
``insertorder=hashed``, the default). Statements follow that binding: reads
``SELECT * .. WHERE y_id = ? LIMIT 1``, scans ``SELECT * .. WHERE token(y_id) >= token(?)
LIMIT ?``. Differences: with ``readallfields=false`` / ``writeallfields=false`` YCSB picks a
random field per operation; casslab reads / updates ``field0`` (same cost, fixed column),
and ``zeropadding`` is ignored.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from enum import StrEnum
from importlib import resources
from pathlib import Path
from typing import Literal

from pydantic import Field, ValidationError

from casslab.cql_text import identifier_problem
from casslab.engine_contract.workload_spec import (
    ENV_NAME,
    Connection,
    Consistency,
    Output,
    WorkloadSpec,
)
from casslab.errors import WorkloadSyntaxError
from casslab.input_files import InputFileError, read_input
from casslab.load import defaults
from casslab.load.limits import (
    MAX_COUNT,
    MAX_VALUE_BYTES,
    port_problem,
    threads_problem,
)
from casslab.record import Record
from casslab.validation import plain_message

PASSWORD_ENV_PROPERTY = "cassandra.password-env"
BUILTIN_WORKLOADS = tuple(f"workload{c}" for c in "abcdef")
BINDINGS = ("cassandra-cql", "cassandra2-cql", "cassandra")
_FORM = (
    "load|run (binding cassandra-cql) -P workloada..workloadf|FILE -p key=value -threads N "
    "-target OPS_PER_S -s"
)


class YcsbPhase(StrEnum):
    LOAD = "load"
    RUN = "run"


RequestDistribution = Literal[
    "uniform", "zipfian", "latest", "hotspot", "exponential", "sequential"
]
LengthDistribution = Literal["constant", "uniform", "zipfian"]


class CoreWorkload(Record):
    """The YCSB CoreWorkload properties casslab honours, with YCSB's defaults."""

    recordcount: int = Field(default=0, ge=0, le=MAX_COUNT)
    operationcount: int = Field(default=0, ge=0, le=MAX_COUNT)
    fieldcount: int = Field(default=10, ge=1, le=1000)
    fieldlength: int = Field(default=100, ge=1, le=MAX_VALUE_BYTES)
    fieldlengthdistribution: LengthDistribution = "constant"
    fieldnameprefix: str = defaults.YCSB_FIELD_PREFIX
    readallfields: bool = True
    writeallfields: bool = False
    readproportion: float = Field(default=0.95, ge=0)
    updateproportion: float = Field(default=0.05, ge=0)
    insertproportion: float = Field(default=0.0, ge=0)
    scanproportion: float = Field(default=0.0, ge=0)
    readmodifywriteproportion: float = Field(default=0.0, ge=0)
    requestdistribution: RequestDistribution = "uniform"
    minscanlength: int = Field(default=1, ge=1)
    maxscanlength: int = Field(default=1000, ge=1)
    scanlengthdistribution: LengthDistribution = "uniform"
    insertorder: Literal["hashed", "ordered"] = "hashed"
    insertstart: int = Field(default=0, ge=0, le=MAX_COUNT)
    insertcount: int | None = Field(default=None, ge=0, le=MAX_COUNT)
    hotspotdatafraction: float = Field(default=0.2, ge=0, le=1)
    hotspotopnfraction: float = Field(default=0.8, ge=0, le=1)
    zipfian_constant: float = Field(default=0.99, gt=0)
    maxexecutiontime: float | None = Field(default=None, gt=0)  # seconds
    table: str = defaults.YCSB_TABLE
    keyspace: str = defaults.YCSB_KEYSPACE
    read_consistency: Consistency = Consistency.QUORUM
    write_consistency: Consistency = Consistency.QUORUM
    replication_factor: int = Field(default=1, ge=1)


# property name -> CoreWorkload field, where they differ
_PROPERTY_FIELDS = {
    "cassandra.keyspace": "keyspace",
    "cassandra.readconsistencylevel": "read_consistency",
    "cassandra.writeconsistencylevel": "write_consistency",
    "cassandra.replication_factor": "replication_factor",
    "zipfian.constant": "zipfian_constant",
}


_PROPERTY_NAMES = {field: key for key, field in _PROPERTY_FIELDS.items()}


def _property(properties: dict[str, str], field: str) -> str:
    return properties.get(_PROPERTY_NAMES.get(field, field), "?")


class YcsbCommand(Record):
    phase: YcsbPhase
    binding: str = "cassandra-cql"
    property_files: list[str] = Field(default_factory=list)
    properties: dict[str, str] = Field(default_factory=dict)  # merged: files, then -p
    threads: int = Field(default=1, ge=1)
    target_per_s: float | None = Field(default=None, gt=0)
    status: bool = False

    @property
    def password_env(self) -> str | None:
        """``-p cassandra.password-env=VAR``: the password is in the environment variable VAR."""
        return self.properties.get(PASSWORD_ENV_PROPERTY)

    def workload(self) -> CoreWorkload:
        """The typed core-workload settings (raises WorkloadSyntaxError on a bad value)."""
        return core_workload(self.properties)

    def contact_points(self, default: Sequence[str]) -> list[str]:
        """From ``-p hosts=a,b`` and ``-p port=N``, else ``default``."""
        hosts = [h.strip() for h in self.properties.get("hosts", "").split(",") if h.strip()]
        if not hosts:
            return list(default)
        port = self.properties.get("port", "9042")
        return [h if h.count(":") == 1 else f"{h}:{port}" for h in hosts]

    def to_spec(
        self,
        connection: Connection,
        *,
        seed: int = 0,
        data_seed: int = 0,
        output: Output | None = None,
    ) -> WorkloadSpec:
        """The engine spec (:func:`casslab.load.ycsb.build.build_ycsb_spec`)."""
        from casslab.load.ycsb.build import build_ycsb_spec

        return build_ycsb_spec(self, connection, seed=seed, data_seed=data_seed, output=output)


# ---------------------------------------------------------------- properties


def parse_properties(text: str, *, source: str = "<properties>") -> dict[str, str]:
    """Java ``.properties`` text (``key=value``, ``key: value``, ``#``/``!`` comments, ``\\``)."""
    properties: dict[str, str] = {}
    logical = ""
    for raw in text.splitlines():
        line = raw.strip() if not logical else raw.lstrip()
        if not logical and (not line or line[0] in "#!"):
            continue
        if line.endswith("\\") and not line.endswith("\\\\"):
            logical += line[:-1]
            continue
        logical += line
        match = re.match(r"^([^=:\s]+)\s*[=:\s]\s*(.*)$", logical)
        if match is None:
            if logical.strip():
                properties[logical.strip()] = ""
        else:
            properties[match.group(1)] = match.group(2).strip()
        logical = ""
    if logical:
        raise WorkloadSyntaxError(f"YCSB properties {source}: the last line ends with '\\'")
    return properties


def core_workload(properties: dict[str, str]) -> CoreWorkload:
    values: dict[str, object] = {}
    names = set(CoreWorkload.model_fields)
    for key, value in properties.items():
        name = _PROPERTY_FIELDS.get(key, key)
        if name not in names or name in ("read_consistency", "write_consistency"):
            continue
        values[name] = value.lower() if name.endswith(("distribution", "order")) else value
    for key in ("cassandra.readconsistencylevel", "cassandra.writeconsistencylevel"):
        if key in properties:
            try:
                values[_PROPERTY_FIELDS[key]] = Consistency(properties[key].upper())
            except ValueError:
                accepted = ", ".join(c.value for c in Consistency)
                raise WorkloadSyntaxError(
                    f"YCSB -p {key}={properties[key]}: not a consistency level; use {accepted}"
                ) from None
    if "maxexecutiontime" in values and str(values["maxexecutiontime"]).strip() in ("", "0"):
        del values["maxexecutiontime"]
    try:
        return CoreWorkload.model_validate(values)
    except ValidationError as exc:
        problems = "; ".join(
            f"-p {_PROPERTY_NAMES.get(str(err['loc'][0]), str(err['loc'][0]))}="
            f"{_property(properties, str(err['loc'][0]))}: {plain_message(err)}"
            for err in exc.errors()
        )
        raise WorkloadSyntaxError(
            f"YCSB properties: {problems}; fix the -p value or -P file"
        ) from None


def builtin_workload_text(name: str) -> str:
    """The text of a shipped core workload file (``workloada`` .. ``workloadf``)."""
    if name not in BUILTIN_WORKLOADS:
        raise WorkloadSyntaxError(
            f"YCSB -P {name!r}: not a shipped workload; use one of {', '.join(BUILTIN_WORKLOADS)}"
        )
    return (resources.files("casslab.load.ycsb") / "workloads" / name).read_text(encoding="utf-8")


def _read_property_file(name: str) -> str:
    path = Path(name).expanduser()
    if path.exists():
        return read_property_file(path)
    if path.name in BUILTIN_WORKLOADS:
        return builtin_workload_text(path.name)
    raise WorkloadSyntaxError(
        f"YCSB -P {name!r}: no such file; give a property file path or one of "
        f"{', '.join(BUILTIN_WORKLOADS)}"
    )


def read_property_file(path: Path) -> str:
    """A ``-P`` file's text, bounded (:func:`casslab.input_files.read_input`)."""
    try:
        return read_input(path, what=f"YCSB -P {str(path)!r}: property file")
    except InputFileError as error:
        raise WorkloadSyntaxError(str(error)) from None


# ---------------------------------------------------------------- command line


def parse_ycsb(
    args: Sequence[str], *, read_file: Callable[[str], str] | None = None
) -> YcsbCommand:
    """Parse ``load|run ...``; ``read_file`` returns a ``-P`` file's text (default: disk,
    falling back to the shipped workloads)."""
    reader = read_file or _read_property_file
    tokens = list(args)
    if tokens and Path(tokens[0]).name == "ycsb":
        tokens.pop(0)
    if not tokens or tokens[0].lower() not in ("load", "run"):
        first = tokens[0] if tokens else "nothing"
        raise WorkloadSyntaxError(f"ycsb: expected load or run, got {first!r}; accepted: {_FORM}")
    fields: dict[str, object] = {"phase": YcsbPhase(tokens[0].lower())}
    files: list[str] = []
    file_props: dict[str, str] = {}
    cli_props: dict[str, str] = {}
    index = 1
    if index < len(tokens) and not tokens[index].startswith("-"):
        if tokens[index] not in BINDINGS:
            raise WorkloadSyntaxError(
                f"ycsb: database binding {tokens[index]!r} is not supported; casslab speaks "
                f"CQL ({', '.join(BINDINGS)})"
            )
        fields["binding"] = tokens[index]
        index += 1
    while index < len(tokens):
        flag = tokens[index]
        if flag in ("-s", "-load", "-t"):
            if flag == "-s":
                fields["status"] = True
            index += 1
            continue
        if flag not in ("-P", "-p", "-threads", "-target", "-db"):
            raise WorkloadSyntaxError(f"ycsb: unknown argument {flag!r}; accepted: {_FORM}")
        if index + 1 >= len(tokens):
            raise WorkloadSyntaxError(f"ycsb: {flag} needs a value; accepted: {_FORM}")
        value = tokens[index + 1]
        index += 2
        if flag == "-P":
            files.append(value)
            file_props.update(parse_properties(reader(value), source=value))
        elif flag == "-p":
            key, sep, prop = value.partition("=")
            if not sep or not key:
                raise WorkloadSyntaxError(
                    f"ycsb -p {value!r}: write key=value, e.g. -p recordcount=10000"
                )
            cli_props[key.strip()] = prop.strip()
        elif flag == "-threads":
            cli_props["threadcount"] = value
        elif flag == "-target":
            cli_props["target"] = value
        elif value not in BINDINGS and not value.endswith("CassandraCQLClient"):
            raise WorkloadSyntaxError(
                f"ycsb -db {value!r}: only the Cassandra CQL binding is supported"
            )
    properties = {**file_props, **cli_props}
    fields["property_files"] = files
    fields["properties"] = properties
    if "threadcount" in properties:
        fields["threads"] = _positive_int(properties["threadcount"], what="-threads")
    if properties.get("target", "0") not in ("", "0"):
        fields["target_per_s"] = _positive_float(properties["target"], what="-target")
    _check_credentials(properties)
    _check_names(properties)
    command = YcsbCommand.model_validate(fields)
    command.workload()  # validate property values now, naming the bad one
    return command


def _check_credentials(properties: dict[str, str]) -> None:
    misspelt = [k for k in properties if k.startswith("cassandra.pass") and k not in _SECRETS]
    if misspelt:
        raise WorkloadSyntaxError(
            f"ycsb -p {misspelt[0]}=...: unknown property; the password is -p "
            f"cassandra.password=P or -p {PASSWORD_ENV_PROPERTY}=VAR"
        )
    secret = [k for k in ("cassandra.password", PASSWORD_ENV_PROPERTY) if k in properties]
    if len(secret) == 2:
        raise WorkloadSyntaxError(
            f"ycsb: give cassandra.password or {PASSWORD_ENV_PROPERTY}, not both "
            f"({PASSWORD_ENV_PROPERTY}=VAR reads the password from the environment variable VAR)"
        )
    name = properties.get(PASSWORD_ENV_PROPERTY)
    if name is not None and not ENV_NAME.fullmatch(name):
        raise WorkloadSyntaxError(
            f"ycsb -p {PASSWORD_ENV_PROPERTY}={name}: name an environment variable (letters, "
            f"digits, _), e.g. -p {PASSWORD_ENV_PROPERTY}=CASSANDRA_PASSWORD"
        )
    if secret and "cassandra.username" not in properties:
        raise WorkloadSyntaxError(
            f"ycsb -p {secret[0]}: a password needs -p cassandra.username=U too"
        )
    if "cassandra.username" in properties and not secret:
        user = properties["cassandra.username"]
        raise WorkloadSyntaxError(
            f"ycsb -p cassandra.username={user}: a user needs its password too: add -p "
            f"{PASSWORD_ENV_PROPERTY}=VAR (the password in the environment variable VAR) or "
            "-p cassandra.password=P"
        )


_SECRETS = ("cassandra.password", PASSWORD_ENV_PROPERTY)


def _check_names(properties: dict[str, str]) -> None:
    """The keyspace, table and field-name prefix go into every statement: CQL names only;
    the port must be one."""
    for key in ("table", "cassandra.keyspace", "fieldnameprefix"):
        if key in properties:
            problem = identifier_problem(properties[key])
            if problem is not None:
                raise WorkloadSyntaxError(f"ycsb -p {key}={properties[key]}: {problem}")
    if "port" in properties:
        text = properties["port"]
        problem = port_problem(int(text)) if text.isdigit() and text.isascii() else None
        if problem is not None or not (text.isdigit() and text.isascii()):
            why = problem or f"{text!r} is not a TCP port; use 1..65535"
            raise WorkloadSyntaxError(f"ycsb -p port={text}: {why}")


def _positive_int(text: str, *, what: str) -> int:
    if not text.isdigit() or not text.isascii() or len(text) > 18 or int(text) < 1:
        raise WorkloadSyntaxError(f"ycsb {what} {text!r}: give a whole number >= 1, e.g. {what} 32")
    problem = threads_problem(int(text)) if what == "-threads" else None
    if problem is not None:
        raise WorkloadSyntaxError(f"ycsb {what} {text}: {problem}")
    return int(text)


def _positive_float(text: str, *, what: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if value <= 0:
        raise WorkloadSyntaxError(f"ycsb {what} {text!r}: give operations per second > 0")
    return value
