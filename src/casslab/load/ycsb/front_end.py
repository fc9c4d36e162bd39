"""YCSB as a load front end (:class:`~casslab.load.front_end.FrontEnd`), registered as
``ycsb``: ``ycsb load|run -P workloada -p recordcount=10000 -threads 32``."""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from casslab.engine_contract.workload_spec import Connection, WorkloadSpec
from casslab.load.command_words import clean_slug
from casslab.load.engine import Wording
from casslab.load.front_end import SearchLoad
from casslab.load.ycsb.compose import compose_ycsb
from casslab.load.ycsb.files import workload_file_reader
from casslab.load.ycsb.parse import YcsbCommand, parse_ycsb
from casslab.load.ycsb.search import ycsb_search_load

# Engine failures in YCSB's words (see casslab.load.stress.front_end.STRESS_TERMS).
# casslab's YCSB front end has no TLS property (YCSB's own cassandra.useSSL is not offered).
YCSB_TERMS: tuple[tuple[str, str], ...] = (
    ("the address/port", "the address and port (-p hosts=HOST, -p port=N)"),
    (
        "needs TLS (connection.tls, tls_ca_file)",
        "needs TLS, which casslab ycsb does not offer (there is no cassandra.useSSL property); "
        "casslab stress connects over TLS with -transport truststore=FILE",
    ),
    ("raise the timeout", "raise --timeout"),
    ("-rate threads=", "-threads "),  # the client split's advice
    ("with the rate", "with -target"),
    (
        "(stop.duration_s / stop.ops)",
        "(-p recordcount= for load, -p operationcount= or -p maxexecutiontime= for run)",
    ),
)


@dataclass(frozen=True)
class YcsbLoad:
    """A parsed YCSB command (its ``-P`` files already read)."""

    command: YcsbCommand

    @property
    def password_env(self) -> str | None:
        return self.command.password_env

    def contact_points(self, default: Sequence[str]) -> list[str]:
        return self.command.contact_points(default)

    def to_spec(self, connection: Connection, *, seed: int = 0, data_seed: int = 0) -> WorkloadSpec:
        return self.command.to_spec(connection, seed=seed, data_seed=data_seed)

    def file_problem(self) -> str | None:
        return None  # its files were read when it was parsed


def _words(command: str | Sequence[str]) -> list[str]:
    return shlex.split(command) if isinstance(command, str) else list(command)


@dataclass(frozen=True)
class YcsbFrontEnd:
    """YCSB's command line and property files."""

    name: str = "ycsb"
    preload_example: str = "ycsb load ..."

    def parse(self, command: str | Sequence[str], *, base_dir: Path | None = None) -> YcsbLoad:
        """``-P`` files are read relative to ``base_dir`` first when it is given, then as
        given, then from the shipped workloads."""
        reader = workload_file_reader(base_dir) if base_dir is not None else None
        return YcsbLoad(parse_ycsb(_words(command), read_file=reader))

    def compose(self, workload: str, measure: str, threads: int | None, rate: float | None) -> str:
        return compose_ycsb(workload, measure, threads, rate)

    def slug(self, command: str) -> str:
        words = [w for w in command.split() if w.lower() not in {"ycsb", "run", "load", "-p"}]
        return clean_slug("ycsb-" + "-".join(w.rsplit("/", 1)[-1] for w in words))

    def wording(self, *, files_kept: bool) -> Wording:
        return Wording(files_kept=files_kept, terms=YCSB_TERMS)

    def search_load(
        self,
        words: Sequence[str],
        *,
        contact_points: Sequence[str],
        closed_loop: bool,
        seed: int,
        data_seed: int,
        base_dir: Path,
    ) -> SearchLoad:
        command = parse_ycsb(list(words))
        connection = Connection(contact_points=command.contact_points(contact_points))
        return ycsb_search_load(command, words, connection, seed=seed, data_seed=data_seed)


YCSB = YcsbFrontEnd()
