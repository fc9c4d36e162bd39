"""Plain messages from pydantic validation errors: one ``<where>: <what>`` per problem.

Pydantic's own wording names neither the file field nor the command-line option, and
carries library prefixes (``Value error, heap '64M': ...``, ``Input should be less than
or equal to 9``). :func:`validation_problems` and :func:`validation_message` say the
same in casslab's words: the place (a dotted field path, or the option it came from),
the rule with its limit, and the value given, e.g. ``--nodes: must be <= 9, got 10``.
Pure: used by the experiment loader, the runner and the CLI.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from pydantic import ValidationError

Describe = Callable[[Mapping[str, Any], Sequence[str | int]], str]
"""How one pydantic error (its ``errors()`` item) at a path reads as a message."""

_PREFIXES = ("Value error, ", "Assertion failed, ")


def format_path(parts: Iterable[str | int]) -> str:
    """``("factors", "config.x", 2)`` -> ``factors.config.x[2]``."""
    out = ""
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out


def plain_message(error: Mapping[str, Any]) -> str:
    """One pydantic error in casslab's words: the rule, its limit and the value given."""
    kind = str(error.get("type", ""))
    ctx = error.get("ctx") or {}
    got = f", got {error.get('input')!r}"
    loc = tuple(error.get("loc") or ())
    by_type = {
        "missing": "required, but missing",
        "int_type": "expected an integer" + got,
        "int_parsing": "expected an integer" + got,
        "int_from_float": "expected an integer" + got,
        "float_type": "expected a number" + got,
        "float_parsing": "expected a number" + got,
        "finite_number": "expected a finite number" + got,
        "string_type": "expected a string" + got,
        "bool_type": "expected true or false" + got,
        "bool_parsing": "expected true or false" + got,
        "list_type": "expected a list" + got,
        "dict_type": "expected a mapping" + got,
        "model_type": "expected a mapping" + got,
        "model_attributes_type": "expected a mapping" + got,
        "enum": f"expected {ctx.get('expected')}" + got,
        "literal_error": f"expected {ctx.get('expected')}" + got,
        "greater_than_equal": f"must be >= {ctx.get('ge')}" + got,
        "greater_than": f"must be > {ctx.get('gt')}" + got,
        "less_than_equal": f"must be <= {ctx.get('le')}" + got,
        "less_than": f"must be < {ctx.get('lt')}" + got,
        "extra_forbidden": f"unknown field {str(loc[-1]) if loc else '?'!r}",
        "string_pattern_mismatch": f"does not match {ctx.get('pattern')}" + got,
        "string_too_short": f"must have at least {ctx.get('min_length')} character(s)" + got,
        "string_too_long": f"must have at most {ctx.get('max_length')} characters" + got,
        "too_short": f"must have at least {ctx.get('min_length')} item(s)" + got,
        "too_long": f"must have at most {ctx.get('max_length')} items" + got,
    }
    if kind in by_type:
        return by_type[kind]
    message = str(error.get("msg", ""))
    if kind == "json_invalid":  # "Invalid JSON: EOF while parsing ..."
        detail = str(ctx.get("error") or message.removeprefix("Invalid JSON: "))
        return f"not valid JSON ({detail}); the file is cut short or corrupt"
    for prefix in _PREFIXES:
        message = message.removeprefix(prefix)
    if message.startswith("Input should be "):  # a type this table does not know yet
        return "expected " + message.removeprefix("Input should be ") + got
    return message


def data_path(data: Any, loc: Sequence[str | int], error_type: str) -> list[str | int]:
    """The part of a pydantic location that names places in ``data`` (no union tags such
    as ``str`` or ``function-after[...]``)."""
    path: list[str | int] = []
    current = data
    for index, part in enumerate(loc):
        in_mapping = isinstance(current, Mapping) and part in current
        in_list = isinstance(current, list) and isinstance(part, int) and part < len(current)
        if in_mapping or in_list:
            path.append(part)
            current = current[part]
        elif index == len(loc) - 1 and error_type == "missing":
            path.append(part)
    return path


def validation_problems(
    error: ValidationError,
    data: Any = None,
    *,
    prefix: Sequence[str | int] = (),
    names: Mapping[str, str] | None = None,
    describe: Describe | None = None,
) -> list[str]:
    """Each error of ``error`` as ``<where>: <message>``.

    ``data``: the validated input; when given, locations keep only the parts that name
    places in it (union tags dropped). ``prefix``: the path of ``data`` in a larger
    document. ``names``: a field path -> the name the user typed (``{"nodes":
    "--nodes"}``). ``describe``: a message for one error at its path (default
    :func:`plain_message`). Union alternatives at one path become one line.
    """
    grouped: dict[str, list[str]] = {}
    for item in error.errors():
        loc = item["loc"]
        found = data_path(data, loc, item["type"]) if data is not None else list(loc)
        path = [*prefix, *found]
        message = describe(item, path) if describe is not None else plain_message(item)
        grouped.setdefault(format_path(path), []).append(message)
    problems: list[str] = []
    for path_text, messages in grouped.items():
        deeper = [p for p in grouped if p.startswith((f"{path_text}.", f"{path_text}["))]
        if path_text and deeper:  # a union: the mapping branch's own errors say more
            messages = [m for m in messages if not m.startswith("expected ")]
        unique = list(dict.fromkeys(messages))
        if len(unique) > 1 and all(m.startswith("expected ") for m in unique):
            wanted = [m.removeprefix("expected ").split(", got ")[0] for m in unique]
            got = unique[0].split(", got ", 1)[1] if ", got " in unique[0] else "?"
            unique = [f"expected {' or '.join(dict.fromkeys(wanted))}, got {got}"]
        where = (names or {}).get(path_text, path_text)
        problems += [f"{where}: {m}" if where else m for m in unique]
    return problems


def validation_message(
    error: ValidationError, *, names: Mapping[str, str] | None = None, data: Any = None
) -> str:
    """Every problem of ``error`` on one line, ``; ``-separated (see
    :func:`validation_problems`), e.g. ``--heap: heap '64M': Cassandra needs at least
    256M``."""
    return "; ".join(validation_problems(error, data, names=names)) or "invalid value"
