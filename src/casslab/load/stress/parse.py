"""cassandra-stress command lines, parsed into a typed :class:`StressCommand`.

Pure: no files, no network. :meth:`StressCommand.to_spec` turns a command into the engine's
:class:`~casslab.engine_contract.workload_spec.WorkloadSpec` (see :mod:`casslab.load.stress.build`);
only a ``user`` command reads its profile file there.

Accepted command line (the cassandra-stress syntax)::

    COMMAND [n=N | duration=N(s|m|h) | err<X n>N n<N] [cl=LEVEL] [no-warmup]
            [truncate=never|once|always] [keysize=N]
            mixed:         [ratio(read=R,write=W,counter_read=R,counter_write=W)] [clustering=DIST]
            counter_write: [add=DIST]
            user:          profile=FILE ops(insert=W,QUERY=W,...)
    [-pop seq=A..B [no-wrap] | dist=DIST] [-rate threads=N [throttle=R/s | fixed=R/s]
    | threads>=A threads<=B | auto] [-col n=N size=DIST names=A,B] [-schema keyspace=K
    replication(strategy=S,factor=F,..) compaction(strategy=S,..) compression=C]
    [-node HOST[,HOST..] [datacenter=DC]] [-port native=N] [-mode native cql3 user=U
    password=P|password-env=VAR]
    [-log file=F interval=1s hdrfile=H] [-graph file=F title=T revision=R] [-errors ignore
    retries=N skip-read-validation] [-insert ...] [-vectors loaded=N] [-transport truststore=FILE
    truststore-password=PW ssl-protocol=TLS ssl-alg=A ssl-ciphers=C,..]
    [-credentials-file FILE] [-reporting output-frequency=1s header-frequency=10s]
    [-tokenrange [wrap] [split-factor=N]]

Shell-escaped forms (``ratio\\(write=9,read=1\\)``, ``threads\\=450``), a leading
``sudo ./tools/bin/cassandra-stress``, an en dash for a hyphen (``\u2013rate``, as copied from
documents), a trailing ``;`` and spaces inside parentheses (``ops\\(insert=9, simple1=1\\)``)
are all accepted.

How a run ends: ``n=`` (after N operations), ``duration=`` (after a time) or ``err<``,
``n>``, ``n<`` (when the op rate settles), one of the three. cassandra-stress declares them
as three option groups, ``Count``, ``Duration`` and ``Uncertainty`` (``SettingsCommand.java``
in ``tools/stress/src/org/apache/cassandra/stress/settings/``), and picks the one group
that accepts every option given (``GroupedOptions.select``); options of two groups leave
none, and stress prints its usage and exits 1 ("Invalid WRITE options provided"). So
``n=1000000 duration=20m`` is refused here too, naming both.
"""

from __future__ import annotations

import itertools
import re
import shlex
from collections.abc import Sequence
from pathlib import Path

from casslab.engine_contract.workload_spec import Consistency
from casslab.errors import WorkloadSyntaxError
from casslab.load.stress.dist import parse_distribution, parse_duration_s
from casslab.load.stress.groups import GROUP_PARSERS, check_credentials
from casslab.load.stress.model import (
    COMMANDS,
    GROUPS,
    MIXED_OPS,
    StressCommand,
    StressCommandKind,
    Truncate,
)
from casslab.load.stress.reporting import apply_reporting
from casslab.load.stress.tokens import parse_consistency, parse_int, parse_weights, split_option

_DASHES = "\u2010\u2011\u2012\u2013\u2014\u2015\u2212"
_COMMAND_FORM = (
    "n=N | duration=N(s|m|h) | cl=ONE|QUORUM|LOCAL_ONE|... | serial-cl=SERIAL|LOCAL_SERIAL | "
    "no-warmup | "
    "truncate=never|once|always | err<X | n>N | n<N | keysize=N"
)


# ---------------------------------------------------------------- tokens


def tokenize(command: str | Sequence[str]) -> list[str]:
    """Normalise a command line into stress tokens (see the module docstring)."""
    if isinstance(command, str):
        try:
            raw = shlex.split(command)
        except ValueError as exc:
            raise WorkloadSyntaxError(
                f"cassandra-stress: cannot split {command!r} into words ({exc}); close every quote"
            ) from None
    else:
        raw = list(command)
        if raw and len(raw[0].split()) > 1:
            # The whole command as one quoted argument, as stress's documentation writes
            # it (`"write n=100k cl=ONE no-warmup"`): its first word is a command.
            return tokenize([*tokenize(raw[0]), *raw[1:]])
    tokens: list[str] = []
    for item in raw:
        token = item.strip().strip("\u201c\u201d")
        if token and token[0] in _DASHES:
            token = "-" + token[1:]
        token = re.sub(r"\\([()=<>,;])", r"\1", token)
        if token:
            tokens.append(token)
    if tokens and tokens[-1].endswith(";"):
        tokens[-1] = tokens[-1].rstrip(";")
        if not tokens[-1]:
            tokens.pop()
    while tokens and (tokens[0] == "sudo" or Path(tokens[0]).name.startswith("cassandra-stress")):
        tokens.pop(0)
    return _join_parentheses(tokens)


def _join_parentheses(tokens: list[str]) -> list[str]:
    joined: list[str] = []
    pending = ""
    for token in tokens:
        pending += token
        if pending.count("(") <= pending.count(")"):
            joined.append(pending)
            pending = ""
    if pending:
        raise WorkloadSyntaxError(
            f"cassandra-stress: {pending!r} opens a parenthesis it never closes; "
            "write e.g. ratio(write=9,read=1)"
        )
    return joined


# ---------------------------------------------------------------- parsing


def parse_stress(command: str | Sequence[str]) -> StressCommand:
    """Parse a cassandra-stress command line; raises WorkloadSyntaxError naming the bad token."""
    tokens = tokenize(command)
    if not tokens:
        raise WorkloadSyntaxError(f"cassandra-stress: empty command; start with one of {COMMANDS}")
    try:
        kind = StressCommandKind(tokens[0].lower())
    except ValueError:
        raise WorkloadSyntaxError(
            f"cassandra-stress: unknown command {tokens[0]!r}; accepted: {COMMANDS}"
        ) from None
    fields: dict[str, object] = {"kind": kind, "tokens": tokens}
    index = 1
    while index < len(tokens) and not tokens[index].startswith("-"):
        _command_option(kind, tokens[index], fields)
        index += 1
    seen: set[str] = set()
    while index < len(tokens):
        group = tokens[index].lower()
        end = index + 1
        while end < len(tokens) and not tokens[end].startswith("-"):
            end += 1
        if group not in GROUPS:
            raise WorkloadSyntaxError(
                f"cassandra-stress: unknown option group {tokens[index]!r}; "
                f"accepted: {', '.join(GROUPS)}"
            )
        if group in seen:
            raise WorkloadSyntaxError(f"cassandra-stress: {group} given twice; merge its options")
        seen.add(group)
        GROUP_PARSERS[group](kind, tokens[index + 1 : end], fields)
        index = end
    _check_end(kind, tokens[1:])
    _check_command(kind, fields)
    check_credentials(fields)
    apply_reporting(fields)
    return StressCommand.model_validate(fields)


def _command_option(kind: StressCommandKind, token: str, fields: dict[str, object]) -> None:
    what = f"{kind.value} {token!r}"
    lowered = token.lower()
    if lowered == "no-warmup":
        fields["no_warmup"] = True
        return
    if lowered.startswith("ratio("):
        form = "ratio(read=1,write=1)  (also counter_read=, counter_write=)"
        if kind is not StressCommandKind.MIXED:
            raise WorkloadSyntaxError(f"{what}: ratio(...) is only valid for mixed")
        weights = parse_weights(token, what=what, form=form)
        for name in weights:
            if name.lower() not in MIXED_OPS:
                raise WorkloadSyntaxError(
                    f"{what}: {name!r} is not an operation of mixed; use {', '.join(MIXED_OPS)}"
                )
        fields["ratio"] = {k.lower(): v for k, v in weights.items() if v > 0}
        return
    if lowered.startswith("ops("):
        if kind is not StressCommandKind.USER:
            raise WorkloadSyntaxError(f"{what}: ops(...) is only valid for user")
        weights = parse_weights(token, what=what, form="ops(insert=9,simple1=1)")
        fields["ops"] = {k: v for k, v in weights.items() if v > 0}
        return
    option = split_option(token)
    if option is None:
        raise WorkloadSyntaxError(
            f"{kind.value}: unknown option {token!r}; accepted: {_COMMAND_FORM}"
        )
    key, op, value = option
    if (key, op) == ("n", "="):
        fields["ops_count"] = parse_int(value, what=what)
    elif (key, op) == ("duration", "="):
        fields["duration_s"] = parse_duration_s(value, what=what)
    elif (key, op) == ("cl", "="):
        fields["consistency"] = parse_consistency(value, what=what)
    elif (key, op) == ("serial-cl", "="):
        serial = parse_consistency(value, what=what)
        if serial not in (Consistency.SERIAL, Consistency.LOCAL_SERIAL):
            raise WorkloadSyntaxError(
                f"{what}: serial-cl={value} is not a serial consistency; lightweight "
                "transactions run their Paxos phase at serial-cl=SERIAL (the default) or "
                "LOCAL_SERIAL"
            )
        fields["serial_consistency"] = serial
    elif (key, op) == ("err", "<"):
        try:
            fields["err_below"] = float(value)
        except ValueError:
            raise WorkloadSyntaxError(f"{what}: write a fraction, e.g. err<0.02") from None
    elif (key, op) == ("n", ">"):
        fields["min_measurements"] = parse_int(value, what=what)
    elif (key, op) == ("n", "<"):
        fields["max_measurements"] = parse_int(value, what=what)
    elif (key, op) == ("truncate", "="):
        try:
            fields["truncate"] = Truncate(value.lower())
        except ValueError:
            raise WorkloadSyntaxError(
                f"{what}: {value!r} is not a truncate mode; use truncate=never (the"
                " default), once (empty the tables before the run) or always (also before"
                " each thread count of a ramp)"
            ) from None
    elif (key, op) == ("keysize", "="):
        fields["key_size"] = parse_int(value, what=what)
    elif (key, op) == ("add", "=") and kind is StressCommandKind.COUNTER_WRITE:
        fields["counter_add"] = parse_distribution(value, what=what)
    elif (key, op) == ("clustering", "=") and kind is StressCommandKind.MIXED:
        parse_distribution(value, what=what)  # validated; operation runs are not clustered
    elif (key, op) == ("profile", "=") and kind is StressCommandKind.USER:
        if not value:
            raise WorkloadSyntaxError(f"{what}: write profile=PATH/TO/profile.yaml")
        fields["profile"] = value
    else:
        extra = {
            StressCommandKind.MIXED: " | ratio(read=R,write=W) | clustering=DIST",
            StressCommandKind.COUNTER_WRITE: " | add=DIST",
            StressCommandKind.USER: " | profile=FILE | ops(insert=W,QUERY=W)",
        }.get(kind, "")
        raise WorkloadSyntaxError(
            f"{kind.value}: unknown option {token!r}; accepted: {_COMMAND_FORM}{extra}"
        )


# cassandra-stress's mutually exclusive option groups that end a run (module docstring):
# the prefixes of each group's options.
_END_GROUPS: tuple[tuple[str, ...], ...] = (("n=",), ("duration=",), ("err<", "n>", "n<"))


def _check_end(kind: StressCommandKind, tokens: list[str]) -> None:
    """At most one of stress's groups n=, duration=, err</n>/n< (as stress decides)."""
    options = [t.lower() for t in itertools.takewhile(lambda t: not t.startswith("-"), tokens)]
    given = [
        " ".join(t for t in options if t.startswith(prefixes))
        for prefixes in _END_GROUPS
        if any(t.startswith(prefixes) for t in options)
    ]
    if len(given) < 2:
        return
    fix = (
        "drop n= to run for the whole duration, or duration= to stop after n= operations"
        if given[0].startswith("n=") and given[1].startswith("duration=")
        else "drop the others"
    )
    raise WorkloadSyntaxError(
        f"{kind.value}: {given[0]} with {given[1]}: cassandra-stress ends a run by one of"
        " n=N (after N operations), duration=T (after T) or err<X n>N n<N (when the op rate"
        f" settles) and refuses a command that gives two; keep one: {fix}"
    )


def _check_command(kind: StressCommandKind, fields: dict[str, object]) -> None:
    if kind is StressCommandKind.MIXED and not fields.get("ratio"):
        fields["ratio"] = {"read": 1.0, "write": 1.0}
    if kind is StressCommandKind.USER:
        if "profile" not in fields:
            raise WorkloadSyntaxError(
                "user: profile=FILE is required, e.g. user profile=cqlstress.yaml ops(insert=1)"
            )
        if not fields.get("ops"):
            raise WorkloadSyntaxError(
                "user: ops(...) is required, e.g. ops(insert=9,simple1=1) with query names "
                "from the profile"
            )
