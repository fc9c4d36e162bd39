"""Emulated WAN links between sites: ``--link dc1-dc2=20ms`` and ``--link
'dc1-dc3=35ms,jitter=2ms,loss=0.1%,rate=100mbit'`` parsed and checked. Pure.

The emulator (``docs/design/wan-links.md``: a VDE ``wirefilter`` per site pair) delays in
whole milliseconds and accepts any text without complaint, so every value is checked
here: a delay in whole milliseconds (within a site the nodes talk over the host's bridge,
about 0.05-0.08 ms one way, which is the LAN; ``0ms``, also the default of a site pair
given no link, adds nothing to the emulator's own ~0.1 ms each way), jitter no larger than
the delay, loss from 0 to 100%, a rate in bit/s with k/m/g (decimal, as network rates are
written).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from pydantic import Field

from casslab.errors import ConfigError
from casslab.record import Record

EXAMPLE = "--link 'dc1-dc2=20ms,jitter=2ms,loss=0.1%,rate=100mbit'"
_PAIR_RE = re.compile(r"^([A-Za-z][A-Za-z0-9_]*)-([A-Za-z][A-Za-z0-9_]*)$")
_MS_RE = re.compile(r"^(\d+(?:\.\d+)?)ms$")
_LOSS_RE = re.compile(r"^(\d+(?:\.\d+)?)%$")
_RATE_RE = re.compile(r"^(\d+(?:\.\d+)?)(bit|kbit|mbit|gbit)$", re.IGNORECASE)
_RATE_FACTORS = {"bit": 1, "kbit": 10**3, "mbit": 10**6, "gbit": 10**9}


class Link(Record):
    """One site pair's link, the same in both directions."""

    sites: tuple[str, str]  # sorted: dc1-dc2 and dc2-dc1 are one link
    delay_ms: int = Field(ge=0)  # one way
    jitter_ms: int = Field(default=0, ge=0)
    loss_pct: float = Field(default=0.0, ge=0.0, le=100.0)
    rate_bps: int | None = Field(default=None, ge=1)  # None: as fast as the host goes


def _milliseconds(value: str, what: str, text: str) -> int:
    match = _MS_RE.match(value)
    if match is None:
        raise ConfigError(f"{text!r}: {what} {value!r} is not a time like 20ms; e.g. {EXAMPLE}")
    amount = float(match.group(1))
    if not amount.is_integer():
        raise ConfigError(
            f"{text!r}: {what} {value}: the link emulator delays in whole milliseconds; "
            "give e.g. 1ms (within a datacenter the nodes already see the LAN's "
            "0.05-0.08 ms)"
        )
    return int(amount)


def parse_link(text: str) -> Link:
    """``dc1-dc2=20ms[,jitter=2ms][,loss=0.1%][,rate=100mbit]`` -> a :class:`Link`."""
    pair, sep, rest = text.partition("=")
    match = _PAIR_RE.match(pair.strip())
    if not sep or match is None:
        raise ConfigError(f"--link {text!r}: expected SITE-SITE=DELAY[,...], e.g. {EXAMPLE}")
    first, second = match.group(1), match.group(2)
    if first == second:
        raise ConfigError(f"--link {text!r}: a link joins two different datacenters")
    parts = [p.strip() for p in rest.split(",")]
    delay = _milliseconds(parts[0], "delay", text)
    fields = _settings(parts[1:], text)
    return _checked({"sites": tuple(sorted((first, second))), "delay_ms": delay, **fields}, text)


def changed(link: Link, values: Sequence[str]) -> Link:
    """``link`` with ``delay=80ms``, ``jitter=``, ``loss=``, ``rate=`` (``rate=none``: no
    cap) changed, checked as ``--link`` is."""
    text = " ".join(values)
    fields: dict[str, object] = {}
    rest: list[str] = []
    for value in values:
        key, _, amount = value.partition("=")
        if key == "delay":
            fields["delay_ms"] = _milliseconds(amount, "delay", text)
        elif key == "rate" and amount == "none":
            fields["rate_bps"] = None
        else:
            rest.append(value)
    fields.update(_settings(rest, text))
    return _checked({**link.model_dump(), **fields}, text)


def _checked(fields: dict[str, object], text: str) -> Link:
    link = Link.model_validate(fields)
    if link.jitter_ms > link.delay_ms:
        raise ConfigError(
            f"--link {text!r}: jitter {link.jitter_ms}ms is larger than the delay "
            f"{link.delay_ms}ms (a packet cannot arrive before it was sent)"
        )
    return link


def _settings(parts: Sequence[str], text: str) -> dict[str, object]:
    """``jitter=2ms``, ``loss=0.1%``, ``rate=100mbit`` as :class:`Link` fields."""
    fields: dict[str, object] = {}
    for part in parts:
        key, eq, value = part.partition("=")
        if not eq:
            raise ConfigError(f"--link {text!r}: {part!r} is not key=value; e.g. {EXAMPLE}")
        if key == "jitter":
            fields["jitter_ms"] = _milliseconds(value, "jitter", text)
        elif key == "loss":
            loss = _LOSS_RE.match(value)
            if loss is None or float(loss.group(1)) > 100:
                raise ConfigError(f"--link {text!r}: loss {value!r} is not 0% to 100%, e.g. 0.1%")
            fields["loss_pct"] = float(loss.group(1))
        elif key == "rate":
            rate = _RATE_RE.match(value)
            if rate is None or float(rate.group(1)) <= 0:
                raise ConfigError(
                    f"--link {text!r}: rate {value!r} is not a rate like 100mbit "
                    "(bit, kbit, mbit, gbit: bits per second)"
                )
            fields["rate_bps"] = int(float(rate.group(1)) * _RATE_FACTORS[rate.group(2).lower()])
        else:
            raise ConfigError(
                f"--link {text!r}: unknown setting {key!r}; a link has a delay, then "
                "jitter=, loss= and rate="
            )
    return fields


def check_links(links: Sequence[Link], datacenters: Sequence[str]) -> None:
    """Every link joins two datacenters of the topology, and no pair is given twice."""
    seen: set[tuple[str, str]] = set()
    for link in links:
        unknown = [s for s in link.sites if s not in datacenters]
        if unknown:
            raise ConfigError(
                f"--link {'-'.join(link.sites)}: datacenter(s) {', '.join(unknown)} are not in "
                f"the topology ({', '.join(datacenters)})"
            )
        if link.sites in seen:
            raise ConfigError(f"--link {'-'.join(link.sites)} is given twice; give it once")
        seen.add(link.sites)


def all_pairs(links: Sequence[Link], datacenters: Sequence[str]) -> list[Link]:
    """A link for every pair of ``datacenters`` (in topology order): the given one, or
    ``0ms`` (no added delay) for a pair given none."""
    given = {link.sites: link for link in links}
    out: list[Link] = []
    for i, first in enumerate(datacenters):
        for second in datacenters[i + 1 :]:
            pair = (first, second) if first < second else (second, first)
            out.append(given.get(pair) or Link(sites=pair, delay_ms=0))
    return out


def link_text(link: Link) -> str:
    """A link as ``--link`` takes it: ``dc1-dc2=20ms,jitter=2ms,loss=0.1%,rate=100mbit``."""
    parts = [f"{'-'.join(link.sites)}={link.delay_ms}ms"]
    if link.jitter_ms:
        parts.append(f"jitter={link.jitter_ms}ms")
    if link.loss_pct:
        parts.append(f"loss={link.loss_pct:g}%")
    if link.rate_bps is not None:
        rate = link.rate_bps
        unit = next(u for u in ("gbit", "mbit", "kbit", "bit") if rate % _RATE_FACTORS[u] == 0)
        parts.append(f"rate={rate // _RATE_FACTORS[unit]}{unit}")
    return ",".join(parts)
