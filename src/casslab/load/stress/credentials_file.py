"""cassandra-stress's ``-credentials-file FILE``: a Java properties file holding
``cql.username``, ``cql.password``, ``jmx.username``, ``jmx.password``,
``transport.truststore.password`` and ``transport.keystore.password``
(``SettingsCredentials.java``); a value given on the command line (``-mode user= password=``,
``-transport truststore-password=``) wins over the file's.

casslab reads the CQL user and password and the truststore's password; it reaches no JMX
and presents no client certificate, so the JMX and keystore entries are read and left
unused, as a command without ``-jmx`` leaves them in cassandra-stress. The file is read with
casslab's input bounds (:mod:`casslab.input_files`); its passwords are never shown."""

from __future__ import annotations

from pathlib import Path

from casslab.input_files import read_input
from casslab.record import Record

CQL_USERNAME = "cql.username"
CQL_PASSWORD = "cql.password"
TRUSTSTORE_PASSWORD = "transport.truststore.password"


class StressCredentials(Record):
    """What a credentials file gives casslab (None: the file has no such key)."""

    cql_username: str | None = None
    cql_password: str | None = None
    truststore_password: str | None = None


def _logical_lines(text: str) -> list[str]:
    """The file's lines with ``\\`` continuations joined (a line ending in an odd number of
    backslashes continues on the next, whose leading blanks are dropped)."""
    lines: list[str] = []
    pending: str | None = None
    for raw in text.splitlines():
        line = raw.lstrip(" \t\f") if pending is not None else raw
        if pending is None and line.lstrip(" \t\f").startswith(("#", "!")):
            continue
        trailing = len(line) - len(line.rstrip("\\"))
        joined = (pending or "") + (line[:-1] if trailing % 2 else line)
        if trailing % 2:
            pending = joined
            continue
        pending = None
        lines.append(joined)
    if pending is not None:
        lines.append(pending)
    return lines


_ESCAPES = {"t": "\t", "n": "\n", "r": "\r", "f": "\f"}


def _unescape(text: str) -> str:
    out: list[str] = []
    index = 0
    while index < len(text):
        char = text[index]
        if char == "\\" and index + 1 < len(text):
            following = text[index + 1]
            out.append(_ESCAPES.get(following, following))
            index += 2
            continue
        out.append(char)
        index += 1
    return "".join(out)


def parse_properties(text: str) -> dict[str, str]:
    """A Java properties file's ``key=value`` / ``key: value`` / ``key value`` pairs (pure;
    comments, blank lines and continuations as ``java.util.Properties`` reads them, the
    last of a repeated key wins; ``\\uXXXX`` escapes are not decoded)."""
    pairs: dict[str, str] = {}
    for line in _logical_lines(text):
        stripped = line.lstrip(" \t\f")
        if not stripped:
            continue
        index = 0
        while index < len(stripped):
            char = stripped[index]
            if char == "\\":
                index += 2
                continue
            if char in "=: \t\f":
                break
            index += 1
        key = stripped[:index]
        rest = stripped[index:].lstrip(" \t\f")
        if rest[:1] in ("=", ":"):  # one separator, after and before any blanks
            rest = rest[1:].lstrip(" \t\f")
        pairs[_unescape(key)] = _unescape(rest)
    return pairs


def credentials(pairs: dict[str, str]) -> StressCredentials:
    """The entries casslab uses (empty values count as absent)."""
    return StressCredentials(
        cql_username=pairs.get(CQL_USERNAME) or None,
        cql_password=pairs.get(CQL_PASSWORD) or None,
        truststore_password=pairs.get(TRUSTSTORE_PASSWORD) or None,
    )


def read_credentials(name: str, base_dir: Path | None) -> StressCredentials:
    """The credentials file ``name`` (relative to ``base_dir``: an experiment file's folder,
    else the working directory)."""
    path = Path(name).expanduser()
    if not path.is_absolute() and base_dir is not None:
        path = base_dir / path
    text = read_input(
        path,
        what="-credentials-file",
        fix="name a properties file with cql.username= and cql.password=",
    )
    return credentials(parse_properties(text))
