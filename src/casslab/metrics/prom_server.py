"""The HTTP endpoint a Prometheus server scrapes: ``prometheus_client``'s WSGI server on a
registry of its own holding one :class:`~casslab.metrics.prometheus.LatestCollector`.

It listens on loopback unless told otherwise (``allow_remote``): the figures say what a
cluster's machines run and how busy they are. :meth:`MetricsServer.close` stops the
server's thread and closes its socket.
"""

from __future__ import annotations

import ipaddress
import threading
from types import TracebackType
from typing import TYPE_CHECKING

from casslab.errors import MetricsError, UsageError
from casslab.metrics.prom_store import LatestValues
from casslab.record import Record

if TYPE_CHECKING:
    from wsgiref.simple_server import WSGIServer

DEFAULT_PORT = 9464  # the port OpenTelemetry's Prometheus exporter uses by default
DEFAULT_ADDRESS = "127.0.0.1"


def is_loopback(address: str) -> bool:
    """Whether ``address`` (an IP literal or ``localhost``) is this machine's loopback."""
    if address == "localhost":
        return True
    try:
        return ipaddress.ip_address(address).is_loopback
    except ValueError:
        return False


class BindFlags(Record):
    """The command-line options that set the address, the port and the permission to
    serve beyond loopback (named in the errors)."""

    address: str = "--address"
    port: str = "--port"
    allow_remote: str = "--allow-remote"


SERVE_FLAGS = BindFlags()
RUN_FLAGS = BindFlags(
    address="--metrics-address", port="--metrics-port", allow_remote="--metrics-allow-remote"
)


def check_bind(
    address: str, port: int, *, allow_remote: bool, flags: BindFlags = SERVE_FLAGS
) -> None:
    """Raise :class:`UsageError` (the flags are command-line options) for a port out of
    range, or an address other machines can reach when ``allow_remote`` is not given."""
    if not 0 <= port <= 65535:
        raise UsageError(f"{flags.port} {port}: give a TCP port from 1 to 65535 (0: any free one)")
    if not is_loopback(address) and not allow_remote:
        raise UsageError(
            f"{flags.address} {address}: not a loopback address, so other machines could "
            f"read the cluster's metrics; add {flags.allow_remote} to serve them there, or "
            f"keep the default {DEFAULT_ADDRESS}"
        )


class MetricsServer:
    """Serves ``store``'s newest values at ``http://address:port/metrics`` (any path
    answers) until :meth:`close`; use it as a context manager. Port 0 takes a free one
    (see :attr:`port`)."""

    def __init__(
        self,
        store: LatestValues,
        *,
        port: int = DEFAULT_PORT,
        address: str = DEFAULT_ADDRESS,
        allow_remote: bool = False,
        flags: BindFlags = SERVE_FLAGS,
    ) -> None:
        check_bind(address, port, allow_remote=allow_remote, flags=flags)
        from prometheus_client import CollectorRegistry, start_http_server

        from casslab.metrics.prometheus import LatestCollector

        registry = CollectorRegistry(auto_describe=False)
        registry.register(LatestCollector(store))
        try:
            server, thread = start_http_server(port, addr=address, registry=registry)
        except OSError as error:
            raise MetricsError(
                f"serving metrics on {address}:{port}: {error.strerror or error}; "
                f"pick another {flags.port} (0: any free one)"
            ) from error
        self._server: WSGIServer | None = server
        self._thread: threading.Thread = thread
        self.address = address
        self.port: int = server.server_port

    @property
    def url(self) -> str:
        host = f"[{self.address}]" if ":" in self.address else self.address
        return f"http://{host}:{self.port}/metrics"

    def close(self) -> None:
        """Stop serving: the server thread ends and the socket is closed."""
        server, self._server = self._server, None
        if server is None:
            return
        server.shutdown()  # serve_forever returns
        server.server_close()
        self._thread.join(timeout=10)

    def __enter__(self) -> MetricsServer:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
