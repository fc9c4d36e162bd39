"""The ranges casslab checks a workload's numbers against before anything starts (pure).

A number past these is a typo or a hostile input, and would otherwise fail late (the
engine's refusal in its own words, a node's "mutation too large", a connection to a port
that cannot exist) or never (a billion threads). Each limit is stated in the message that
refuses it.
"""

from __future__ import annotations

from typing import Final

MAX_THREADS: Final = 10_000
"""Client threads (connections' in-flight requests) of one engine: ``-rate threads=``,
``threads<=``, YCSB ``-threads``. cassandra-stress's own ramp stops at 1000."""

MAX_VALUE_BYTES: Final = 16 * 1024 * 1024
"""One generated value (``-col size=``, a profile's ``size:``, YCSB ``fieldlength``): 16 MiB,
Cassandra's largest mutation with its default 32 MiB commit-log segment."""

MAX_COUNT: Final = 10**15
"""An operation or row count or a key range bound (``n=``, ``-pop seq=``, YCSB
``recordcount``): far past any run, and exact in the engine's 64-bit integers."""

MAX_PORT: Final = 65_535


def port_problem(value: int) -> str | None:
    """Why ``value`` cannot be a TCP port, or None."""
    if 1 <= value <= MAX_PORT:
        return None
    return f"{value} is not a TCP port; use 1..{MAX_PORT} (Cassandra's native port is 9042)"


def threads_problem(value: int) -> str | None:
    """Why ``value`` client threads are refused, or None."""
    if value <= MAX_THREADS:
        return None
    return f"{value} threads is past casslab's limit of {MAX_THREADS} per engine; use fewer"


def value_size_problem(value: int) -> str | None:
    """Why values of ``value`` bytes are refused, or None."""
    if value <= MAX_VALUE_BYTES:
        return None
    return (
        f"{value} bytes per value is past {MAX_VALUE_BYTES} (16 MiB, Cassandra's largest "
        "mutation by default); use smaller values"
    )


def count_problem(value: int) -> str | None:
    """Why the count ``value`` is refused, or None."""
    if value <= MAX_COUNT:
        return None
    return f"{value} is past casslab's limit of {MAX_COUNT} (10^15); use a smaller count"
