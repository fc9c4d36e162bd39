"""Emulated WAN links between sites: ``--link dc1-dc2=20ms`` and ``--link
'dc1-dc3=35ms,jitter=2ms,loss=0.1%,rate=100mbit'`` parsed and checked. Pure.

The emulator (``docs/design/wan-links.md``: a VDE ``wirefilter`` per site pair) delays in
whole milliseconds and accepts any text without complaint, so every value is checked
here: a delay of at least 1 ms in whole milliseconds (within a site the nodes talk over
the host's bridge, about 0.05-0.08 ms one way, which is the LAN), jitter no larger than
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
    delay_ms: int = Field(ge=1)  # one way
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
    if delay < 1:
        raise ConfigError(f"--link {text!r}: a link's delay is at least 1ms, e.g. {EXAMPLE}")
    fields: dict[str, object] = {}
    for part in parts[1:]:
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
    jitter = fields.get("jitter_ms", 0)
    if isinstance(jitter, int) and jitter > delay:
        raise ConfigError(
            f"--link {text!r}: jitter {jitter}ms is larger than the delay {delay}ms (a packet "
            "cannot arrive before it was sent)"
        )
    return Link.model_validate(
        {"sites": tuple(sorted((first, second))), "delay_ms": delay, **fields}
    )


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
