"""``casslab stress help [command|-option]``: cassandra-stress's help, in casslab's words.

cassandra-stress's ``help`` (``SettingsMisc.printHelp``) lists its commands
(``Command.java``) and option groups (``CliOption.java``) one a line; ``help COMMAND`` or
``help -OPTION`` prints that one's parameters. casslab lists the same names, says which it
runs and gives the parameters it accepts. Pure: records in, lines out, each at most 80
columns.
"""

from __future__ import annotations

import textwrap

from casslab.errors import WorkloadSyntaxError
from casslab.load.stress.dist import DIST_FORMS
from casslab.record import Record

WIDTH = 80
_RUN_END = "n=N | duration=N(s|m|h) | err<X n>N n<N  (one of the three; how a run ends)"
_COMMON = (
    _RUN_END,
    "cl=LEVEL  consistency level: ONE, QUORUM, LOCAL_ONE, LOCAL_QUORUM, ALL, ...",
    "serial-cl=LEVEL  lightweight transactions' Paxos phase: SERIAL (default), LOCAL_SERIAL",
    "no-warmup  skip the warm-up before the measured run",
    "truncate=never|once|always  empty the tables first (never is the default)",
    "keysize=N  bytes of each generated key",
)


class HelpEntry(Record):
    """One command or option group: its name, what it does, whether casslab runs it."""

    name: str
    summary: str
    supported: bool = True
    parameters: tuple[str, ...] = ()


COMMAND_HELP: tuple[HelpEntry, ...] = (
    HelpEntry(
        name="read",
        summary="concurrent reads of rows a write run stored; each row read is checked",
        parameters=_COMMON,
    ),
    HelpEntry(name="write", summary="concurrent writes of generated rows", parameters=_COMMON),
    HelpEntry(
        name="mixed",
        summary="reads and writes interleaved by a ratio (populate with write first)",
        parameters=(
            *_COMMON,
            "ratio(read=R,write=W,counter_read=R,counter_write=W)  weights, default 1:1",
            "clustering=DIST  accepted and checked; operations are not clustered",
        ),
    ),
    HelpEntry(
        name="counter_write",
        summary="concurrent increments of counter columns",
        parameters=(*_COMMON, "add=DIST  the amount each increment adds"),
    ),
    HelpEntry(
        name="counter_read",
        summary="concurrent reads of counters (populate with counter_write first)",
        parameters=_COMMON,
    ),
    HelpEntry(
        name="user",
        summary="your own schema and queries from a YAML profile, mixed by weight",
        parameters=(
            *_COMMON,
            "profile=FILE[,FILE...]  the YAML profile(s); each is named by its specname:",
            "ops(insert=W,QUERY=W,...)  the operations and their weights; with several",
            "  profiles SPEC.OP=W (a plain OP is one of the first profile)",
        ),
    ),
    HelpEntry(
        name="help",
        summary="this help; help COMMAND or help -OPTION for one's parameters",
        parameters=("help", "help COMMAND", "help -OPTION"),
    ),
    HelpEntry(
        name="print",
        summary="the values a distribution generates: its kind, bounds, percentiles",
        parameters=(f"dist=DIST  one of {DIST_FORMS}",),
    ),
    HelpEntry(name="legacy", summary="cassandra-stress's legacy option syntax", supported=False),
)

OPTION_HELP: tuple[HelpEntry, ...] = (
    HelpEntry(
        name="-pop",
        summary="which keys the operations visit, and in what order",
        parameters=("seq=A..B [no-wrap]  keys A to B in order", "dist=DIST  keys drawn from DIST"),
    ),
    HelpEntry(
        name="-insert",
        summary="how a user profile's insert batches and splits partition updates",
        parameters=(
            "partitions=DIST",
            "select-ratio=DIST",
            "row-population-ratio=DIST",
            "batchtype=LOGGED|UNLOGGED|COUNTER",
        ),
    ),
    HelpEntry(
        name="-vectors",
        summary="casslab's: a vector profile's search while loading (over its vectors:)",
        parameters=("loaded=N  base vectors the table already holds (keys 1..N)",),
    ),
    HelpEntry(
        name="-col",
        summary="the columns of write/read: how many, their size, their names",
        parameters=(
            "n=N  number of columns",
            "size=DIST  bytes of each value",
            "names=A,B,...  column names",
        ),
    ),
    HelpEntry(
        name="-rate",
        summary="client threads, a rate limit, or a thread ramp",
        parameters=("threads=N [throttle=R/s | fixed=R/s]", "threads>=A threads<=B", "auto"),
    ),
    HelpEntry(
        name="-mode",
        summary="protocol and credentials (casslab always speaks native CQL)",
        parameters=("native cql3  accepted", "user=U password=P | password-env=VAR"),
    ),
    HelpEntry(
        name="-errors",
        summary="what to do when operations fail",
        parameters=(
            "ignore  exit status 0 even when operations failed",
            "retries=N  retries of a failed operation",
            "skip-read-validation  do not check the rows read",
        ),
    ),
    HelpEntry(
        name="-schema",
        summary="keyspace, replication, compaction and compression of write/read",
        parameters=(
            "keyspace=K",
            "replication(strategy=S,factor=F,...)",
            "compaction(strategy=S,...)",
            "compression=C",
        ),
    ),
    HelpEntry(
        name="-node",
        summary="the nodes to connect to (default: the current casslab cluster)",
        parameters=("HOST[,HOST...]", "datacenter=DC  the local datacenter"),
    ),
    HelpEntry(
        name="-log",
        summary="where the run's text goes and how often a row is printed",
        parameters=("file=F", "interval=1s", "hdrfile=H  HDR histogram log", "no-summary"),
    ),
    HelpEntry(
        name="-transport",
        summary="TLS to the nodes",
        parameters=(
            "truststore=FILE truststore-password=PW",
            "ssl-protocol=TLS",
            "ssl-alg=A",
            "ssl-ciphers=C,...",
        ),
    ),
    HelpEntry(name="-port", summary="the native port of the nodes", parameters=("native=N",)),
    HelpEntry(name="-jmx", summary="JMX credentials", supported=False),
    HelpEntry(
        name="-graph",
        summary="an HTML graph of the run's metrics",
        parameters=("file=F", "title=T", "revision=R  a run added to an existing graph"),
    ),
    HelpEntry(
        name="-tokenrange",
        summary="how a profile's token_range_queries walk the token ring",
        parameters=(
            "wrap  start over at the ring's start when every range was read (default: the"
            " run ends then)",
            "split-factor=N  cut each token range into N pieces, one read per piece (default 1)",
        ),
    ),
    HelpEntry(
        name="-credentials-file",
        summary="a properties file of credentials; the command line's own win",
        parameters=(
            "FILE  cql.username=U cql.password=P transport.truststore.password=PW",
            "jmx.* and transport.keystore.password are read and not used",
        ),
    ),
    HelpEntry(
        name="-reporting",
        summary="how often statistics and their header are printed",
        parameters=(
            "output-frequency=1s  a row, measured over its own period (as -log interval=)",
            "header-frequency=T  the header again every T (default: at the start only)",
        ),
    ),
)


def _wrap(text: str, indent: str) -> list[str]:
    return textwrap.wrap(text, WIDTH, initial_indent=indent, subsequent_indent=indent + "    ")


def _entry_line(entry: HelpEntry) -> list[str]:
    mark = "" if entry.supported else " (not supported by casslab)"
    return textwrap.wrap(
        f"{entry.name:<18} {entry.summary}{mark}",
        WIDTH,
        initial_indent="  ",
        subsequent_indent=" " * 21,
    )


def overview() -> list[str]:
    """``casslab stress help``: the commands and option groups, one a line."""
    lines = [
        "Usage:      casslab stress COMMAND [options] [-OPTION ...]",
        "Help usage: casslab stress help COMMAND | help -OPTION",
        "",
        "Commands:",
    ]
    for entry in COMMAND_HELP:
        lines += _entry_line(entry)
    lines += ["", "Options:"]
    for entry in OPTION_HELP:
        lines += _entry_line(entry)
    return lines


def detail(name: str) -> list[str]:
    """``casslab stress help NAME``: one command's or option group's parameters."""
    key = name.strip().lower()
    by_name = {entry.name: entry for entry in (*COMMAND_HELP, *OPTION_HELP)}
    entry = by_name.get(key) or by_name.get(key.replace("-", "_")) or by_name.get("-" + key)
    if entry is None:
        commands = ", ".join(e.name for e in COMMAND_HELP)
        options = ", ".join(e.name for e in OPTION_HELP)
        raise WorkloadSyntaxError(
            f"help: {name!r} is not a cassandra-stress command or option; "
            f"commands: {commands}; options: {options}"
        )
    kind = "option" if entry.name.startswith("-") else "command"
    lines = _wrap(f"{kind} {entry.name}: {entry.summary}", "")
    if not entry.supported:
        return [*lines, "casslab does not support it yet."]
    lines.append("Parameters:")
    for parameter in entry.parameters:
        lines += _wrap(parameter, "  ")
    return lines


def help_lines(args: list[str]) -> list[str]:
    """The lines of ``help`` with its arguments (none or one)."""
    if not args:
        return overview()
    if len(args) > 1:
        raise WorkloadSyntaxError(
            f"help: one command or option at a time, not {' '.join(args)!r}; e.g. help -rate"
        )
    return detail(args[0])
