"""The typed record of one cassandra-stress command line (see :mod:`casslab.load.stress.parse`)."""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import Field

from casslab.engine_contract.workload_spec import Consistency, DistKind, Distribution
from casslab.load import defaults
from casslab.load.credentials import mask_token
from casslab.record import Record

if TYPE_CHECKING:
    from casslab.engine_contract.workload_spec import Connection, Output, WorkloadSpec
    from casslab.load.stress.profile import StressProfile


class StressCommandKind(StrEnum):
    WRITE = "write"
    READ = "read"
    MIXED = "mixed"
    COUNTER_WRITE = "counter_write"
    COUNTER_READ = "counter_read"
    USER = "user"


class Truncate(StrEnum):
    NEVER = "never"
    ONCE = "once"
    ALWAYS = "always"


COMMANDS = "write | read | mixed | counter_write | counter_read | user"
MIXED_OPS = ("read", "write", "counter_read", "counter_write")
GROUPS = (
    "-pop",
    "-rate",
    "-col",
    "-schema",
    "-node",
    "-port",
    "-mode",
    "-log",
    "-graph",
    "-errors",
    "-insert",
    "-vectors",
    "-transport",
    "-credentials-file",
    "-reporting",
    "-tokenrange",
)


class StressRate(Record):
    """``-rate``: fixed threads, an open-loop rate, or a thread ramp."""

    threads: int | None = Field(default=None, ge=1)
    threads_min: int | None = Field(default=None, ge=1)
    threads_max: int | None = Field(default=None, ge=1)
    auto: bool = False
    throttle_per_s: float | None = Field(default=None, gt=0)
    fixed_per_s: float | None = Field(default=None, gt=0)


class StressPopulation(Record):
    """``-pop``: which key indexes the operations visit."""

    dist: Distribution
    no_wrap: bool = False


class StressColumns(Record):
    names: list[str] = Field(
        default_factory=lambda: defaults.stress_column_names(defaults.STRESS_COLUMN_COUNT)
    )
    size: Distribution = Field(
        default_factory=lambda: Distribution(
            kind=DistKind.FIXED, min=defaults.STRESS_COLUMN_SIZE, max=defaults.STRESS_COLUMN_SIZE
        )
    )


class StressSchema(Record):
    keyspace: str = defaults.STRESS_KEYSPACE
    replication_strategy: str = defaults.STRESS_REPLICATION_STRATEGY
    replication_options: dict[str, str] = Field(default_factory=dict)
    compaction_strategy: str | None = None
    compaction_options: dict[str, str] = Field(default_factory=dict)
    compression: str | None = None


class StressMode(Record):
    user: str | None = None
    password: str | None = None
    password_env: str | None = None  # `password-env=VAR`: the password is in $VAR
    prepared: bool = True
    native_port: int | None = None  # `-mode port=` (older stress)


class StressLog(Record):
    file: str | None = None
    interval_s: float = 1.0
    hdrfile: str | None = None
    level: str = "normal"
    no_summary: bool = False
    no_settings: bool = False


class StressReporting(Record):
    """``-reporting``: how often a row and the header are printed (None: not given;
    casslab.load.stress.reporting)."""

    output_frequency_s: float | None = Field(default=None, gt=0)
    header_frequency_s: float | None = Field(default=None, gt=0)


class StressGraph(Record):
    file: str | None = None
    title: str | None = None
    revision: str = "unknown"
    op: str | None = None


class StressErrors(Record):
    ignore: bool = False
    retries: int | None = Field(default=None, ge=0)  # None: the connection's default
    skip_read_validation: bool = False


class StressTransport(Record):
    """``-transport``: TLS to the native port; a ``truststore=`` turns it on.

    The engine (OpenSSL) verifies each node's certificate, including its IP address, against
    the truststore's certificates. ``ssl-protocol=``, ``ssl-alg=``, ``ssl-ciphers=``,
    ``store-type=``, ``hostname-verification=`` and ``factory=`` are recorded, not applied:
    OpenSSL negotiates the protocol and cipher, and keytool detects the store type.
    """

    truststore: str | None = None  # JKS, PKCS12 or PEM file
    truststore_password: str | None = None
    store_type: str | None = None
    ssl_protocol: str = "TLS"
    ssl_alg: str | None = None
    ssl_ciphers: list[str] = Field(default_factory=list)
    hostname_verification: bool | None = None
    factory: str | None = None

    @property
    def tls(self) -> bool:
        return self.truststore is not None


class StressTokenRange(Record):
    """``-tokenrange [wrap] [split-factor=N]``: how token range queries walk the ring
    (:mod:`casslab.load.stress.token_ranges`)."""

    wrap: bool = False
    split_factor: int = Field(default=1, ge=1)


class StressCommand(Record):
    """One parsed cassandra-stress command line (values as given; defaults resolved later)."""

    kind: StressCommandKind
    tokens: list[str]  # the normalised tokens, for display and the run manifest
    ops_count: int | None = Field(default=None, ge=1)  # n=
    duration_s: float | None = Field(default=None, gt=0)  # duration=
    consistency: Consistency = Consistency.LOCAL_ONE
    # serial-cl=: the Paxos phase of lightweight transactions (SERIAL or LOCAL_SERIAL)
    serial_consistency: Consistency = Consistency.SERIAL
    err_below: float = 0.02  # err<
    min_measurements: int = 30  # n>
    max_measurements: int = 200  # n<
    no_warmup: bool = False
    truncate: Truncate = Truncate.NEVER
    key_size: int = Field(default=defaults.STRESS_KEY_SIZE, ge=1)
    counter_add: Distribution = Field(
        default_factory=lambda: Distribution(kind=DistKind.FIXED, min=1, max=1)
    )
    ratio: dict[str, float] = Field(default_factory=dict)  # mixed
    ops: dict[str, float] = Field(default_factory=dict)  # user
    profile: str | None = None  # user
    population: StressPopulation | None = None
    rate: StressRate | None = None
    columns: StressColumns = Field(default_factory=StressColumns)
    schema_settings: StressSchema = Field(default_factory=StressSchema)
    nodes: list[str] = Field(default_factory=list)
    datacenter: str | None = None
    native_port: int = 9042
    mode: StressMode = Field(default_factory=StressMode)
    log: StressLog = Field(default_factory=StressLog)
    graph: StressGraph = Field(default_factory=StressGraph)
    errors: StressErrors = Field(default_factory=StressErrors)
    insert: dict[str, str] = Field(default_factory=dict)  # -insert: overrides profile insert:
    # -vectors loaded=N (casslab's): overrides the vector profile's vectors: loaded:
    vectors_loaded: int | None = Field(default=None, ge=0)
    transport: StressTransport = Field(default_factory=StressTransport)
    # -credentials-file: CQL user and password, truststore password (read when the spec is
    # built: casslab.load.stress.credentials_file)
    credentials_file: str | None = None
    # -reporting: how often rows and the header are printed (casslab.load.stress.reporting)
    reporting: StressReporting = Field(default_factory=StressReporting)
    token_range: StressTokenRange = Field(default_factory=StressTokenRange)  # -tokenrange

    def contact_points(self, default: Sequence[str]) -> list[str]:
        """``host:port`` for every ``-node`` host, or ``default`` when none was given."""
        if not self.nodes:
            return list(default)
        port = self.mode.native_port or self.native_port
        return [_with_port(node, port) for node in self.nodes]

    @property
    def password_env(self) -> str | None:
        """``-mode password-env=VAR``: the password is in the environment variable VAR."""
        return self.mode.password_env

    def display(self) -> str:
        """The command as typed, with any ``password=`` (also ``truststore-password=``,
        ``keystore-password=``) value masked (:data:`casslab.load.credentials.MASK`)."""
        return " ".join(mask_token(t) for t in self.tokens)

    def to_spec(
        self,
        connection: Connection,
        *,
        seed: int = 0,
        data_seed: int = 0,
        output: Output | None = None,
        profile_dir: Path | None = None,
        profile: StressProfile | None = None,
    ) -> WorkloadSpec:
        """The engine spec for this command (see :func:`casslab.load.stress.build.build_spec`).

        ``seed`` draws the operation sequence, ``data_seed`` the values written and
        validated. A ``user`` command reads ``profile=`` (relative to ``profile_dir`` when
        given) unless an already parsed ``profile`` is passed.
        """
        from casslab.load.stress.build import build_spec

        return build_spec(
            self,
            connection,
            seed=seed,
            data_seed=data_seed,
            output=output,
            profile_dir=profile_dir,
            profile=profile,
        )


def _with_port(node: str, port: int) -> str:
    """``host`` -> ``host:port``; IPv6 addresses get brackets; a given port is kept."""
    if node.startswith("["):
        return node if "]:" in node else f"{node}:{port}"
    colons = node.count(":")
    if colons == 1:
        return node
    return f"[{node}]:{port}" if colons > 1 else f"{node}:{port}"
