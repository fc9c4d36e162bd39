"""Network sampler of a node in its own network namespace: the traffic of its veth pair.

Read on the host, from the host end of the pair (``/sys/class/net/<if>/statistics``), so
no process enters the namespace. What the host end received the node sent, and the other
way round: the values are swapped to be the node's (``netns.rx_bytes_per_s`` = bytes the
node received = the host end's tx_bytes).
"""

from __future__ import annotations

from pathlib import Path

from casslab.errors import ConfigError
from casslab.metrics.rates import CounterTracker
from casslab.metrics.source import Sample, SourceUnavailableError

SYS_CLASS_NET = Path("/sys/class/net")


def node_traffic(host_rx_bytes: int, host_tx_bytes: int) -> tuple[int, int]:
    """(bytes the node received, bytes it sent) from the counters of the host end of its
    veth pair: the node received what the host end sent."""
    return host_tx_bytes, host_rx_bytes


class NetnsSource:
    """Samples the host end ``interface`` of node ``label``'s veth pair."""

    def __init__(self, label: str, interface: str, sys_class_net: Path = SYS_CLASS_NET) -> None:
        if not interface or "/" in interface or interface in (".", ".."):
            raise ConfigError(
                f"network interface {interface!r} of node {label}: give the name of the host "
                "end of the node's veth pair, as `ip link` lists it (e.g. 'cl-ab12-n1')"
            )
        self._label = label
        self._interface = interface
        self._stats = sys_class_net / interface / "statistics"
        if not self._stats.is_dir():
            raise ConfigError(
                f"network interface {interface!r} of node {label} not found ({self._stats} "
                "is missing): give the host end of a veth pair that exists (`ip link`)"
            )
        self._rates = CounterTracker()

    @property
    def name(self) -> str:
        return "netns"

    @property
    def node(self) -> str:
        return self._label

    def _counter(self, name: str) -> int:
        return int((self._stats / name).read_text().strip())

    def sample(self, now: float) -> list[Sample]:
        try:
            received, sent = node_traffic(self._counter("rx_bytes"), self._counter("tx_bytes"))
        except (OSError, ValueError) as e:
            self._rates = CounterTracker()
            raise SourceUnavailableError(
                f"reading the traffic of interface {self._interface} ({self._label}): {e}"
            ) from e
        out: list[Sample] = []
        for metric, value in (
            ("netns.rx_bytes_per_s", received),
            ("netns.tx_bytes_per_s", sent),
        ):
            rate = self._rates.update(metric, float(value), now)
            if rate is not None:
                out.append(Sample(now, self._label, metric, rate))
        return out

    def close(self) -> None:
        return None
