"""cassandra-stress option groups (``-pop``, ``-rate``, ``-col`` ...) and shared token helpers.

Each group parser takes the command kind, the group's tokens and the field dictionary of
the :class:`~casslab.load.stress_model.StressCommand` being built, and fills its part.
"""

from __future__ import annotations

import re

from casslab.errors import WorkloadSyntaxError
from casslab.load import defaults
from casslab.load.spec import Consistency, DistKind, Distribution
from casslab.load.stress_dist import (
    parse_count,
    parse_distribution,
    parse_duration_s,
    parse_range,
)
from casslab.load.stress_model import (
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


def _split_args(body: str) -> list[str]:
    """Split ``a=1, b=(x,y)`` at top-level commas."""
    parts: list[str] = []
    depth = 0
    current = ""
    for char in body:
        if char == "," and depth == 0:
            parts.append(current.strip())
            current = ""
            continue
        depth += {"(": 1, ")": -1}.get(char, 0)
        current += char
    if current.strip():
        parts.append(current.strip())
    return parts


def _paren_options(token: str, *, what: str, form: str) -> tuple[str, dict[str, str]]:
    match = re.match(r"^([A-Za-z_-]+)\((.*)\)$", token)
    if match is None:
        raise WorkloadSyntaxError(f"{what}: {token!r} is malformed; accepted form: {form}")
    options: dict[str, str] = {}
    for part in _split_args(match.group(2)):
        key, sep, value = part.partition("=")
        if not sep or not key.strip() or not value.strip():
            raise WorkloadSyntaxError(
                f"{what}: {part!r} in {token!r} is not key=value; accepted form: {form}"
            )
        options[key.strip()] = value.strip()
    return match.group(1).lower(), options


def parse_weights(token: str, *, what: str, form: str) -> dict[str, float]:
    _, options = _paren_options(token, what=what, form=form)
    weights: dict[str, float] = {}
    for key, value in options.items():
        try:
            weight = float(value)
        except ValueError:
            raise WorkloadSyntaxError(
                f"{what}: weight {value!r} of {key!r} in {token!r} is not a number; "
                f"accepted form: {form}"
            ) from None
        if weight < 0:
            raise WorkloadSyntaxError(f"{what}: weight of {key!r} in {token!r} must be >= 0")
        weights[key] = weight
    if not any(w > 0 for w in weights.values()):
        raise WorkloadSyntaxError(f"{what}: {token!r} needs at least one weight > 0; e.g. {form}")
    return weights


_OPTION = re.compile(r"^([A-Za-z][A-Za-z0-9_.-]*)(>=|<=|=|<|>)(.*)$")


def split_option(token: str) -> tuple[str, str, str] | None:
    match = _OPTION.match(token)
    if match is None:
        return None
    return match.group(1).lower(), match.group(2), match.group(3)


def parse_int(text: str, *, what: str, minimum: int = 1) -> int:
    value = parse_count(text, what=what)
    if value < minimum:
        raise WorkloadSyntaxError(f"{what}: {text!r} must be at least {minimum}")
    return value


def _rate_per_s(text: str, *, what: str) -> float:
    match = re.match(r"^\s*(\d+(?:\.\d+)?)\s*(?:/s)?\s*$", text)
    if match is None or float(match.group(1)) <= 0:
        raise WorkloadSyntaxError(f"{what}: {text!r} is not a rate; write e.g. 2000/s")
    return float(match.group(1))


def parse_consistency(text: str, *, what: str) -> Consistency:
    try:
        return Consistency(text.upper())
    except ValueError:
        accepted = ", ".join(c.value for c in Consistency)
        raise WorkloadSyntaxError(
            f"{what}: {text!r} is not a consistency level; use {accepted}"
        ) from None


def _expect_options(
    group: str, args: list[str], allowed: dict[str, str]
) -> dict[str, tuple[str, str]]:
    """Split ``key=value`` / ``key<=value`` / ``flag`` tokens, rejecting unknown keys."""
    form = " ".join(v for v in allowed.values() if v)
    found: dict[str, tuple[str, str]] = {}
    for token in args:
        option = split_option(token)
        key = f"{option[0]}{option[1]}" if option else token.lower()
        if key not in allowed:
            raise WorkloadSyntaxError(
                f"{group}: unknown option {token!r}; accepted form: {group} {form}"
            )
        found[key] = (token, option[2] if option else "")
    return found


def _pop(kind: StressCommandKind, args: list[str], fields: dict[str, object]) -> None:
    allowed = {
        "seq=": "seq=MIN..MAX",
        "dist=": "| dist=DIST",
        "no-wrap": "no-wrap",
        "contents=": "contents=sorted|shuffled",
        "read-lookback=": "read-lookback=DIST",
    }
    found = _expect_options("-pop", args, allowed)
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
    found = _expect_options("-rate", args, allowed)
    rate: dict[str, object] = {}
    for key, (token, value) in found.items():
        what = f"-rate {token!r}"
        if key == "threads=":
            rate["threads"] = parse_int(value, what=what)
        elif key == "threads>=":
            rate["threads_min"] = parse_int(value, what=what)
        elif key == "threads<=":
            rate["threads_max"] = parse_int(value, what=what)
        elif key == "auto":
            rate["auto"] = True
        elif key in ("throttle=", "limit="):
            rate["throttle_per_s"] = _rate_per_s(value, what=what)
        else:
            rate["fixed_per_s"] = _rate_per_s(value, what=what)
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


def _col(kind: StressCommandKind, args: list[str], fields: dict[str, object]) -> None:
    allowed = {"n=": "n=FIXED(N)", "size=": "size=DIST", "names=": "names=A,B,.."}
    found = _expect_options("-col", args, allowed)
    names: list[str] | None = None
    if "names=" in found:
        names = [n for n in found["names="][1].split(",") if n]
        if not names:
            raise WorkloadSyntaxError("-col names=: give at least one name, e.g. names=a,b")
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
        columns["size"] = parse_distribution(value, what=f"-col {token!r}")
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
            name, options = _paren_options(token, what=f"-schema {token!r}", form=form)
            strategy = options.pop("strategy", None)
            if name == "replication":
                if strategy:
                    schema["replication_strategy"] = strategy
                if "factor" in options:
                    options["replication_factor"] = options.pop("factor")
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
            schema["keyspace"] = option[2]
        elif option and option[:2] == ("compression", "=") and option[2]:
            schema["compression"] = option[2]
        else:
            raise WorkloadSyntaxError(f"-schema: unknown option {token!r}; accepted form: {form}")
    fields["schema_settings"] = StressSchema.model_validate(schema)


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
    if not nodes:
        raise WorkloadSyntaxError("-node: give at least one address, e.g. -node 127.0.0.1")
    fields["nodes"] = nodes


def _port(kind: StressCommandKind, args: list[str], fields: dict[str, object]) -> None:
    allowed = {"native=": "native=9042", "thrift=": "thrift=N", "jmx=": "jmx=N"}
    found = _expect_options("-port", args, allowed)
    if "native=" in found:
        token, value = found["native="]
        fields["native_port"] = parse_int(value, what=f"-port {token!r}")


def _mode(kind: StressCommandKind, args: list[str], fields: dict[str, object]) -> None:
    mode: dict[str, object] = {}
    flags = {"native", "cql3", "simplenative", "prepared", "unprepared"}
    valued = {
        "user",
        "password",
        "port",
        "compression",
        "protocolversion",
        "maxpending",
        "connectionsperhost",
        "auth-provider",
    }
    form = "-mode native cql3 prepared|unprepared user=U password=P port=N"
    for token in args:
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
        elif key == "port":
            mode["native_port"] = parse_int(value, what=f"-mode {token!r}")
    fields["mode"] = StressMode.model_validate(mode)


def _log(kind: StressCommandKind, args: list[str], fields: dict[str, object]) -> None:
    allowed = {
        "file=": "file=PATH",
        "interval=": "interval=1s",
        "hdrfile=": "hdrfile=PATH",
        "level=": "level=minimal|normal|verbose",
        "no-summary": "no-summary",
        "no-settings": "no-settings",
    }
    found = _expect_options("-log", args, allowed)
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
    found = _expect_options("-graph", args, allowed)
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
    found = _expect_options("-errors", args, allowed)
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
    for token in (word for arg in args for word in arg.split()):
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
    "-transport": _transport,
}
