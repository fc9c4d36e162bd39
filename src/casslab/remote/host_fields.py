"""What an inventory host's text fields may hold, checked before anything starts: an
``address`` is a host name or an IP address, a ``user`` a login name, ``dc`` and ``rack``
plain names (they are written into ``cassandra-rackdc.properties``), and ``base_dir``,
``java_home`` and ``cassandra_home`` absolute paths of safe characters. Commands sent to a
host are quoted by :func:`casslab.remote.scripts.command_line` as well; these checks refuse
a ``;``, ``$(...)``, a backquote, a quote, a space or a newline before it gets that far.
Pure."""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Mapping
from typing import Final

_LABEL: Final = re.compile(r"[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?")
_USER: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]{0,31}")
_NAME: Final = re.compile(r"[A-Za-z0-9_.-]{1,48}")
_PATH: Final = re.compile(r"/[A-Za-z0-9_./+@,=-]*")
_PATH_FIELDS: Final = ("base_dir", "java_home", "cassandra_home")
TEXT_FIELDS: Final = ("address", "user", "dc", "rack", *_PATH_FIELDS)
"""The fields of a host checked here."""


def _is_address(value: str) -> bool:
    try:
        ipaddress.ip_address(value)
    except ValueError:
        labels = value.removesuffix(".").split(".")
        return len(value) <= 253 and all(_LABEL.fullmatch(label) for label in labels)
    return True


def _path_problem(value: str) -> str | None:
    if not value.startswith("/"):
        return "is not an absolute path; write it from /, e.g. /opt/cassandra"
    if not _PATH.fullmatch(value):
        return (
            "holds a character casslab does not pass to a host's shell (a space, quote, ;, $, "
            "`, a newline...); use letters, digits and / . _ - + @ , ="
        )
    if ".." in value.split("/"):
        return "holds a '..' component; write the path without it"
    return None


def host_field_problems(fields: Mapping[str, str | None], where: str) -> list[str]:
    """Problems of one host's text ``fields`` (``address``, ``user``, ``dc``, ``rack`` and the
    path fields, as written); ``where`` names the entry (``hosts[1]``), each problem the
    field, the host (its address) and the value."""
    problems: list[str] = []
    host = fields.get("address")

    def refuse(name: str, value: str, why: str) -> None:
        of_host = "" if name == "address" else f" of host {host!r}"
        problems.append(f"{where}.{name}{of_host}: {value!r} {why}")

    address = fields.get("address")
    if address is not None and not _is_address(address):
        refuse(
            "address",
            address,
            "is not a host name or an IP address; write e.g. 10.0.0.11 or db1.example.com",
        )
    user = fields.get("user")
    if user is not None and not _USER.fullmatch(user):
        refuse("user", user, "is not a login name; use letters, digits and _ . - (e.g. root)")
    for name in ("dc", "rack"):
        value = fields.get(name)
        if value is not None and not _NAME.fullmatch(value):
            refuse(name, value, "is not a plain name; use letters, digits and _ . - (e.g. dc1)")
    for name in _PATH_FIELDS:
        value = fields.get(name)
        problem = None if value is None else _path_problem(value)
        if value is not None and problem is not None:
            refuse(name, value, problem)
    return problems
