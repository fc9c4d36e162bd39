"""cassandra-stress option tokens: ``key=value`` splitting, ``name(a=1,b=2)`` lists, numbers.

Shared by the command parser (:mod:`casslab.load.stress.parse`) and the option groups
(:mod:`casslab.load.stress.groups`). Pure; each error names the token and the accepted form.
"""

from __future__ import annotations

import re

from casslab.engine_contract.workload_spec import Consistency
from casslab.errors import WorkloadSyntaxError
from casslab.load.stress.dist import parse_count
from casslab.masking import value_end


def split_args(body: str) -> list[str]:
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


def paren_options(token: str, *, what: str, form: str) -> tuple[str, dict[str, str]]:
    match = re.match(r"^([A-Za-z_-]+)\((.*)\)$", token)
    if match is None:
        raise WorkloadSyntaxError(f"{what}: {token!r} is malformed; accepted form: {form}")
    options: dict[str, str] = {}
    for part in split_args(match.group(2)):
        key, sep, value = part.partition("=")
        if not sep or not key.strip() or not value.strip():
            raise WorkloadSyntaxError(
                f"{what}: {part!r} in {token!r} is not key=value; accepted form: {form}"
            )
        options[key.strip()] = value.strip()
    return match.group(1).lower(), options


def parse_weights(token: str, *, what: str, form: str) -> dict[str, float]:
    _, options = paren_options(token, what=what, form=form)
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


_PASSWORD_KEY = re.compile(r"(?:^|\s)((?:truststore-|keystore-)?password=)", re.I)


def option_words(arg: str) -> list[str]:
    """The options in one command-line word (``'user=u password=p'`` quoted as one): split
    at spaces, except that a password runs to the next option of the word, spaces and all
    (``password=a secret``, :func:`casslab.masking.value_end`)."""
    match = _PASSWORD_KEY.search(arg)
    if match is None:
        return arg.split()
    end = value_end(arg, match.end(1))
    return [*arg[: match.start(1)].split(), arg[match.start(1) : end], *option_words(arg[end:])]


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


def rate_per_s(text: str, *, what: str) -> float:
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


def expect_options(
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
