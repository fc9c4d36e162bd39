"""cassandra-stress option groups (``-pop``, ``-rate``, ``-col`` ...).

Each group parser takes the command kind, the group's tokens and the field dictionary of
the :class:`~casslab.load.stress.model.StressCommand` being built, and fills its part.
Token helpers are in :mod:`casslab.load.stress.tokens`.
"""

from __future__ import annotations

from casslab.cql_text import (
    class_name_problem,
    identifier_problem,
    option_key_problem,
    option_value_problem,
)
from casslab.engine_contract.workload_spec import ENV_NAME, DistKind, Distribution
from casslab.errors import WorkloadSyntaxError
from casslab.load import defaults
from casslab.load.limits import port_problem, threads_problem, value_size_problem
from casslab.load.stress.dist import parse_distribution, parse_duration_s, parse_range
from casslab.load.stress.model import (
    StressColumns,
    StressCommandKind,
    StressErrors,
    StressGraph,
    StressLog,
    StressMode,
    StressPopulation,
    StressRate,
    StressSchema,
    StressTransport,
)
from casslab.load.stress.reporting import parse_reporting
from casslab.load.stress.token_ranges import parse_tokenrange
from casslab.load.stress.tokens import (
    expect_options,
    option_words,
    paren_options,
    parse_int,
    rate_per_s,
    split_option,
)


def _pop(kind: StressCommandKind, args: list[str], fields: dict[str, object]) -> None:
    allowed = {
        "seq=": "seq=MIN..MAX",
        "dist=": "| dist=DIST",
        "no-wrap": "no-wrap",
        "contents=": "contents=sorted|shuffled",
        "read-lookback=": "read-lookback=DIST",
    }
    found = expect_options("-pop", args, allowed)
    if ("seq=" in found) == ("dist=" in found):
        raise WorkloadSyntaxError(
            f"-pop: give exactly one of seq=MIN..MAX or dist=DIST (got {' '.join(args) or 'none'})"
        )
    if "seq=" in found:
        token, value = found["seq="]
        low, high = parse_range(value, what=f"-pop {token!r}")
        dist = Distribution(kind=DistKind.SEQ, min=low, max=high)
    else:
        token, value = found["dist="]
        dist = parse_distribution(value, what=f"-pop {token!r}")
    fields["population"] = StressPopulation(dist=dist, no_wrap="no-wrap" in found)


def _rate(kind: StressCommandKind, args: list[str], fields: dict[str, object]) -> None:
    allowed = {
        "threads=": "threads=N (throttle=R/s | fixed=R/s)",
        "throttle=": "",
        "fixed=": "",
        "limit=": "",
        "threads>=": "| threads>=MIN threads<=MAX | auto",
        "threads<=": "",
        "auto": "",
    }
    found = expect_options("-rate", args, allowed)
    rate: dict[str, object] = {}
    for key, (token, value) in found.items():
        what = f"-rate {token!r}"
        if key == "threads=":
            rate["threads"] = _threads(value, what=what)
        elif key == "threads>=":
            rate["threads_min"] = _threads(value, what=what)
        elif key == "threads<=":
            rate["threads_max"] = _threads(value, what=what)
        elif key == "auto":
            rate["auto"] = True
        elif key in ("throttle=", "limit="):
            rate["throttle_per_s"] = rate_per_s(value, what=what)
        else:
            rate["fixed_per_s"] = rate_per_s(value, what=what)
    ramp = any(k in rate for k in ("threads_min", "threads_max", "auto"))
    if ramp and ("threads" in rate or "throttle_per_s" in rate or "fixed_per_s" in rate):
        raise WorkloadSyntaxError(
            f"-rate {' '.join(args)}: threads>=/threads<=/auto ramps the thread count and "
            "cannot be combined with threads=, throttle= or fixed="
        )
    if "throttle_per_s" in rate and "fixed_per_s" in rate:
        raise WorkloadSyntaxError(
            f"-rate {' '.join(args)}: give throttle=R/s or fixed=R/s, not both"
        )
    if not rate:
        raise WorkloadSyntaxError("-rate: give threads=N, threads>=A threads<=B, or auto")
    minimum, maximum = rate.get("threads_min"), rate.get("threads_max")
    if isinstance(minimum, int) and isinstance(maximum, int) and minimum > maximum:
        raise WorkloadSyntaxError(f"-rate {' '.join(args)}: threads>= must not exceed threads<=")
    fields["rate"] = StressRate.model_validate(rate)


def _threads(text: str, *, what: str) -> int:
    value = parse_int(text, what=what)
    problem = threads_problem(value)
    if problem is not None:
        raise WorkloadSyntaxError(f"{what}: {problem}")
    return value


def port_number(text: str, *, what: str) -> int:
    """A TCP port (1..65535) from ``text``, or a WorkloadSyntaxError naming ``what``."""
    value = parse_int(text, what=what)
    problem = port_problem(value)
    if problem is not None:
        raise WorkloadSyntaxError(f"{what}: {problem}")
    return value


def _col(kind: StressCommandKind, args: list[str], fields: dict[str, object]) -> None:
    allowed = {"n=": "n=FIXED(N)", "size=": "size=DIST", "names=": "names=A,B,.."}
    found = expect_options("-col", args, allowed)
    names: list[str] | None = None
    if "names=" in found:
        names = [n for n in found["names="][1].split(",") if n]
        if not names:
            raise WorkloadSyntaxError("-col names=: give at least one name, e.g. names=a,b")
        for name in names:
            problem = identifier_problem(name)
            if problem is not None:
                raise WorkloadSyntaxError(f"-col {found['names='][0]!r}: {problem}")
    if "n=" in found:
        token, value = found["n="]
        count = parse_distribution(value, what=f"-col {token!r}")
        if count.min != count.max:
            raise WorkloadSyntaxError(
                f"-col {token!r}: a varying column count is not supported; use n=FIXED(N)"
            )
        if names is not None and len(names) != count.min:
            raise WorkloadSyntaxError(f"-col: n={count.min} but names= lists {len(names)} columns")
        names = names or defaults.stress_column_names(count.min)
    columns: dict[str, object] = {}
    if names is not None:
        if not names:
            raise WorkloadSyntaxError("-col n=: at least one column is needed")
        columns["names"] = names
    if "size=" in found:
        token, value = found["size="]
        size = parse_distribution(value, what=f"-col {token!r}")
        problem = value_size_problem(size.max)
        if problem is not None:
            raise WorkloadSyntaxError(f"-col {token!r}: {problem}")
        columns["size"] = size
    fields["columns"] = StressColumns.model_validate(columns)


def _schema(kind: StressCommandKind, args: list[str], fields: dict[str, object]) -> None:
    if kind is StressCommandKind.USER:
        raise WorkloadSyntaxError(
            "-schema: only for predefined commands; a user command takes its schema from the "
            "profile (keyspace_definition / table_definition)"
        )
    schema: dict[str, object] = {}
    form = "-schema keyspace=K replication(strategy=S,factor=N) compaction(strategy=S) "
    form += "compression=C"
    for token in args:
        lowered = token.lower()
        if lowered.startswith(("replication(", "compaction(")):
            name, options = paren_options(token, what=f"-schema {token!r}", form=form)
            _check_map(token, options)
            strategy = options.pop("strategy", None)
            if name == "replication":
                if strategy:
                    schema["replication_strategy"] = strategy
                if "factor" in options:
                    options["replication_factor"] = options.pop("factor")
                factor = options.get("replication_factor", "1")
                if not factor.isdigit() or not factor.isascii() or int(factor) < 1:
                    raise WorkloadSyntaxError(
                        f"-schema {token!r}: factor {factor!r} is not a replication factor; "
                        "give a whole number >= 1, e.g. replication(factor=3)"
                    )
                schema["replication_options"] = options
            else:
                if strategy is None:
                    raise WorkloadSyntaxError(
                        f"-schema {token!r}: name the class, "
                        "e.g. compaction(strategy=LeveledCompactionStrategy)"
                    )
                schema["compaction_strategy"] = strategy
                schema["compaction_options"] = options
            continue
        option = split_option(token)
        if option and option[:2] == ("keyspace", "=") and option[2]:
            _check_name(token, identifier_problem(option[2]))
            schema["keyspace"] = option[2]
        elif option and option[:2] == ("compression", "=") and option[2]:
            _check_name(token, class_name_problem(option[2]))
            schema["compression"] = option[2]
        else:
            raise WorkloadSyntaxError(f"-schema: unknown option {token!r}; accepted form: {form}")
    fields["schema_settings"] = StressSchema.model_validate(schema)


def _check_name(token: str, problem: str | None) -> None:
    if problem is not None:
        raise WorkloadSyntaxError(f"-schema {token!r}: {problem}")


def _check_map(token: str, options: dict[str, str]) -> None:
    """``replication(...)`` / ``compaction(...)``: a class name for ``strategy=``, option
    names for the keys (the values are escaped when the CQL is written)."""
    for key, value in options.items():
        _check_name(token, option_key_problem(key))
        if key == "strategy":
            _check_name(token, class_name_problem(value))
        else:
            _check_name(token, option_value_problem(value))


def _node(kind: StressCommandKind, args: list[str], fields: dict[str, object]) -> None:
    nodes: list[str] = []
    for token in args:
        option = split_option(token)
        if token.lower() == "whitelist":
            continue
        if option and option[:2] == ("datacenter", "="):
            fields["datacenter"] = option[2]
            continue
        if option:
            raise WorkloadSyntaxError(
                f"-node: unsupported option {token!r}; accepted form: -node HOST[,HOST...] "
                "datacenter=DC whitelist"
            )
        nodes.extend(n.strip() for n in token.split(",") if n.strip())
    if not nodes and "datacenter" not in fields:
        raise WorkloadSyntaxError("-node: give at least one address, e.g. -node 127.0.0.1")
    if nodes:  # `-node datacenter=dc1` alone: the current cluster's nodes, dc1 preferred
        fields["nodes"] = nodes


def _port(kind: StressCommandKind, args: list[str], fields: dict[str, object]) -> None:
    allowed = {"native=": "native=9042", "thrift=": "thrift=N", "jmx=": "jmx=N"}
    found = expect_options("-port", args, allowed)
    if "native=" in found:
        token, value = found["native="]
        fields["native_port"] = port_number(value, what=f"-port {token!r}")


def _mode(kind: StressCommandKind, args: list[str], fields: dict[str, object]) -> None:
    mode: dict[str, object] = {}
    flags = {"native", "cql3", "simplenative", "prepared", "unprepared"}
    valued = {
        "user",
        "password",
        "password-env",
        "port",
        "compression",
        "protocolversion",
        "maxpending",
        "connectionsperhost",
        "auth-provider",
    }
    form = "-mode native cql3 prepared|unprepared user=U password=P|password-env=VAR port=N"
    for token in (word for arg in args for word in option_words(arg)):
        lowered = token.lower()
        if lowered in flags:
            if lowered == "unprepared":
                mode["prepared"] = False
            continue
        if lowered == "thrift":
            raise WorkloadSyntaxError(
                "-mode thrift: Thrift is gone from Cassandra; use -mode native cql3"
            )
        option = split_option(token)
        if option is None or option[1] != "=" or option[0] not in valued:
            raise WorkloadSyntaxError(f"-mode: unknown option {token!r}; accepted form: {form}")
        key, _, value = option
        if key in ("user", "password"):
            mode[key] = value
        elif key == "password-env":
            if not ENV_NAME.fullmatch(value):
                raise WorkloadSyntaxError(
                    f"-mode {token!r}: name an environment variable (letters, digits, _), "
                    "e.g. password-env=CASSANDRA_PASSWORD"
                )
            mode["password_env"] = value
        elif key == "port":
            mode["native_port"] = port_number(value, what=f"-mode {token!r}")
    if "password" in mode and "password_env" in mode:
        raise WorkloadSyntaxError(
            "-mode: give password= or password-env=, not both (password-env=VAR reads the "
            "password from the environment variable VAR)"
        )
    if ("password" in mode or "password_env" in mode) and "user" not in mode:
        raise WorkloadSyntaxError(f"-mode: a password needs user= too; accepted form: {form}")
    fields["mode"] = StressMode.model_validate(mode)


def check_credentials(fields: dict[str, object]) -> None:
    """A ``-mode user=`` needs its password on the command line, unless a
    ``-credentials-file`` may hold it (checked when the file is read)."""
    mode = fields.get("mode")
    if not isinstance(mode, StressMode) or mode.user is None or "credentials_file" in fields:
        return
    if mode.password is None and mode.password_env is None:
        raise WorkloadSyntaxError(
            f"-mode 'user={mode.user}': a user needs its password too: add "
            "password-env=VAR (the password in the environment variable VAR), password=P, "
            "or -credentials-file FILE with cql.password=P in it"
        )


def _credentials_file(kind: StressCommandKind, args: list[str], fields: dict[str, object]) -> None:
    if len(args) != 1 or not args[0]:
        raise WorkloadSyntaxError(
            f"-credentials-file {' '.join(args) or '(no file)'}: name one file, e.g. "
            "-credentials-file stress.properties (a properties file with cql.username= and "
            "cql.password=)"
        )
    fields["credentials_file"] = args[0]


def _log(kind: StressCommandKind, args: list[str], fields: dict[str, object]) -> None:
    allowed = {
        "file=": "file=PATH",
        "interval=": "interval=1s",
        "hdrfile=": "hdrfile=PATH",
        "level=": "level=minimal|normal|verbose",
        "no-summary": "no-summary",
        "no-settings": "no-settings",
    }
    found = expect_options("-log", args, allowed)
    log: dict[str, object] = {}
    for key, (token, value) in found.items():
        if key in ("file=", "hdrfile="):
            if not value:
                raise WorkloadSyntaxError(f"-log {token!r}: give a path, e.g. {key}run.log")
            log[key.rstrip("=")] = value
        elif key == "interval=":
            log["interval_s"] = parse_duration_s(value, what=f"-log {token!r}")
        elif key == "level=":
            if value.lower() not in ("minimal", "normal", "verbose"):
                raise WorkloadSyntaxError(f"-log {token!r}: use level=minimal|normal|verbose")
            log["level"] = value.lower()
        else:
            log[key.replace("-", "_")] = True
    fields["log"] = StressLog.model_validate(log)


def _graph(kind: StressCommandKind, args: list[str], fields: dict[str, object]) -> None:
    allowed = {
        "file=": "file=PATH.html",
        "title=": "title=T",
        "revision=": "revision=R",
        "op=": "op=NAME",
    }
    found = expect_options("-graph", args, allowed)
    if "file=" not in found or not found["file="][1]:
        raise WorkloadSyntaxError("-graph: file= is required, e.g. -graph file=stress.html")
    graph = {key.rstrip("="): value for key, (_, value) in found.items()}
    fields["graph"] = StressGraph.model_validate(graph)


def _errors(kind: StressCommandKind, args: list[str], fields: dict[str, object]) -> None:
    allowed = {
        "ignore": "ignore",
        "retries=": "retries=N",
        "tries=": "tries=N",
        "skip-read-validation": "skip-read-validation",
    }
    found = expect_options("-errors", args, allowed)
    errors: dict[str, object] = {
        "ignore": "ignore" in found,
        "skip_read_validation": "skip-read-validation" in found,
    }
    if "retries=" in found:
        token, value = found["retries="]
        errors["retries"] = parse_int(value, what=f"-errors {token!r}", minimum=0)
    if "tries=" in found:
        token, value = found["tries="]
        errors["retries"] = parse_int(value, what=f"-errors {token!r}", minimum=1) - 1
    fields["errors"] = StressErrors.model_validate(errors)


def _insert(kind: StressCommandKind, args: list[str], fields: dict[str, object]) -> None:
    insert: dict[str, str] = {}
    for token in args:
        option = split_option(token)
        if option is None or option[1] != "=":
            raise WorkloadSyntaxError(
                f"-insert: {token!r} is not key=value; e.g. -insert partitions=fixed(1) "
                "batchtype=unlogged select-ratio=fixed(1)/1"
            )
        insert[option[0]] = option[2]
    fields["insert"] = insert


def _vectors(kind: StressCommandKind, args: list[str], fields: dict[str, object]) -> None:
    """``-vectors loaded=N`` (casslab's): the base vectors the table already holds, over
    the vector profile's ``vectors: loaded:`` (one profile, searched before and after a
    full load)."""
    found = expect_options("-vectors", args, {"loaded=": "loaded=N"})
    if kind is not StressCommandKind.USER or "loaded=" not in found:
        raise WorkloadSyntaxError(
            f"-vectors {' '.join(args) or '(nothing)'}: give loaded=N (the base vectors the "
            "table already holds) with a user profile=FILE that has vectors:, e.g. "
            "-vectors loaded=20000"
        )
    token, value = found["loaded="]
    fields["vectors_loaded"] = parse_int(value, what=f"-vectors {token!r}", minimum=0)


TRANSPORT_FORM = (
    "-transport truststore=FILE truststore-password=PW [ssl-protocol=TLS] [ssl-alg=A] "
    "[ssl-ciphers=C1,C2] [store-type=JKS|PKCS12] [hostname-verification=true|false]"
)
_TRANSPORT_KEYS = {
    "truststore": "truststore",
    "truststore-password": "truststore_password",
    "store-type": "store_type",
    "ssl-protocol": "ssl_protocol",
    "ssl-alg": "ssl_alg",
    "ssl-ciphers": "ssl_ciphers",
    "hostname-verification": "hostname_verification",
    "factory": "factory",
}


def _transport(kind: StressCommandKind, args: list[str], fields: dict[str, object]) -> None:
    """``-transport``: TLS settings; also accepts its options quoted as one word
    (``-transport "truststore=F truststore-password=P"``)."""
    transport: dict[str, object] = {}
    for token in (word for arg in args for word in option_words(arg)):
        option = split_option(token)
        if option is not None and option[0] in ("keystore", "keystore-password"):
            raise WorkloadSyntaxError(
                f"-transport {token!r}: casslab's engine cannot present a client certificate, "
                "so keystore= and keystore-password= are not supported; drop them (a node with "
                "require_client_auth: false needs only the truststore); accepted form: "
                f"{TRANSPORT_FORM}"
            )
        if option is None or option[1] != "=" or option[0] not in _TRANSPORT_KEYS:
            raise WorkloadSyntaxError(
                f"-transport: unknown option {token!r}; accepted form: {TRANSPORT_FORM}"
            )
        key, _, value = option
        if not value:
            raise WorkloadSyntaxError(
                f"-transport {token!r}: give a value, e.g. {key}="
                + {"truststore": "truststore.jks", "truststore-password": "PW"}.get(key, "...")
                + f"; accepted form: {TRANSPORT_FORM}"
            )
        field = _TRANSPORT_KEYS[key]
        if field in transport:
            raise WorkloadSyntaxError(f"-transport: {key}= given twice; keep one")
        if key == "ssl-ciphers":
            transport[field] = [c.strip() for c in value.split(",") if c.strip()]
        elif key == "hostname-verification":
            if value.lower() not in ("true", "false"):
                raise WorkloadSyntaxError(
                    f"-transport {token!r}: use hostname-verification=true|false"
                )
            transport[field] = value.lower() == "true"
        else:
            transport[field] = value
    if "truststore_password" in transport and "truststore" not in transport:
        raise WorkloadSyntaxError(
            "-transport: truststore-password= without truststore=; name the store, e.g. "
            "-transport truststore=truststore.jks truststore-password=PW"
        )
    if "truststore" not in transport:
        raise WorkloadSyntaxError(
            f"-transport {' '.join(args) or '(no options)'}: TLS needs truststore=FILE (JKS, "
            f"PKCS12 or PEM holding the cluster's CA certificate); accepted form: {TRANSPORT_FORM}"
        )
    fields["transport"] = StressTransport.model_validate(transport)


GROUP_PARSERS = {
    "-pop": _pop,
    "-rate": _rate,
    "-col": _col,
    "-schema": _schema,
    "-node": _node,
    "-port": _port,
    "-mode": _mode,
    "-log": _log,
    "-graph": _graph,
    "-errors": _errors,
    "-insert": _insert,
    "-vectors": _vectors,
    "-transport": _transport,
    "-credentials-file": _credentials_file,
    "-reporting": parse_reporting,
    "-tokenrange": parse_tokenrange,
}
