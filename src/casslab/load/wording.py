"""Engine failures in the words of the front end the user typed.

The engine names what to change as workload-spec fields (``connection.tls``,
``tls_ca_file``, ``stop.ops``); a ``casslab stress`` user typed ``-transport truststore=``
and a ``casslab ycsb`` user ``-p`` properties. Each table pairs a phrase of the engine's
messages (its connect hint, ``engine/src/runner/``) or of :mod:`casslab.load.engine` with
the front end's own; ``tests/cli/test_load_errors_cli.py`` fails when a phrase drifts.
"""

from __future__ import annotations

from casslab.load.engine import Wording

STRESS_TERMS: tuple[tuple[str, str], ...] = (
    ("the address/port", "the address and port (-node HOST, -port native=N)"),
    ("(connection.tls, tls_ca_file)", "(-transport truststore=FILE)"),
    (
        "that tls_ca_file signs its certificate",
        "that the -transport truststore=FILE holds the CA that signs its certificate",
    ),
    ("raise the timeout", "raise --timeout"),
    ("(stop.duration_s / stop.ops)", "(n= or duration=)"),
)

# casslab's YCSB front end has no TLS property (YCSB's own cassandra.useSSL is not offered).
YCSB_TERMS: tuple[tuple[str, str], ...] = (
    ("the address/port", "the address and port (-p hosts=HOST, -p port=N)"),
    (
        "needs TLS (connection.tls, tls_ca_file)",
        "needs TLS, which casslab ycsb does not offer (there is no cassandra.useSSL property); "
        "casslab stress connects over TLS with -transport truststore=FILE",
    ),
    ("raise the timeout", "raise --timeout"),
    (
        "(stop.duration_s / stop.ops)",
        "(-p recordcount= for load, -p operationcount= or -p maxexecutiontime= for run)",
    ),
)


def stress(*, files_kept: bool) -> Wording:
    """How ``casslab stress`` words engine failures (``files_kept``: see :class:`Wording`)."""
    return Wording(files_kept=files_kept, terms=STRESS_TERMS)


def ycsb(*, files_kept: bool) -> Wording:
    """How ``casslab ycsb`` words engine failures."""
    return Wording(files_kept=files_kept, terms=YCSB_TERMS)
