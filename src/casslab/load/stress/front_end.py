"""cassandra-stress as a load front end (:class:`~casslab.load.front_end.FrontEnd`):
registered as ``stress``, and the default for a command that names no front end."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from casslab.engine_contract.workload_spec import Connection, WorkloadSpec
from casslab.errors import CasslabError
from casslab.load.command_words import clean_slug
from casslab.load.engine import Wording
from casslab.load.front_end import SearchLoad
from casslab.load.stress.compose import compose_stress
from casslab.load.stress.model import StressCommand
from casslab.load.stress.parse import parse_stress
from casslab.load.stress.search import stress_search_load

# Engine failures name workload-spec fields (connection.tls, tls_ca_file, stop.ops); a
# stress user typed -transport truststore= and n=. Each pair: the engine's phrase (its
# connect hint, engine/src/runner/, or casslab.load.engine's), then stress's own words;
# tests/cli/test_load_errors_cli.py fails when a phrase drifts.
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


@dataclass(frozen=True)
class StressLoad:
    """A parsed stress command and the folder its ``profile=`` is read from."""

    command: StressCommand
    base_dir: Path | None = None

    @property
    def password_env(self) -> str | None:
        return self.command.password_env

    def contact_points(self, default: Sequence[str]) -> list[str]:
        return self.command.contact_points(default)

    def to_spec(self, connection: Connection, *, seed: int = 0, data_seed: int = 0) -> WorkloadSpec:
        return self.command.to_spec(
            connection, seed=seed, data_seed=data_seed, profile_dir=self.base_dir
        )

    def file_problem(self) -> str | None:
        """A ``user`` command's profile that is missing or does not read."""
        from casslab.load.stress.profile import load_profile
        from casslab.load.stress.profile_set import profile_paths
        from casslab.workloads.named import profile_location

        if self.command.profile is None:
            return None
        try:
            paths = profile_paths(self.command.profile)
        except CasslabError as error:
            return str(error)
        for profile in paths:
            try:
                path = profile_location(profile, self.base_dir)
            except CasslabError as error:
                return str(error)
            if not path.is_file():
                return (
                    f"profile {profile!r}: no such file {path}; a profile path is relative "
                    "to the experiment file"
                )
            try:
                load_profile(path)
            except CasslabError as error:
                return str(error)
        return None


def _slug(command: str) -> str:
    # "ratio(write=9,read=1)" -> "9,1": keep the values of key=value pairs in brackets
    def values(match: re.Match[str]) -> str:
        items = [item.partition("=")[2] or item for item in match.group(1).split(",")]
        return ",".join(items)

    return clean_slug(re.sub(r"\b\w+\(([^)]*)\)", values, command))


@dataclass(frozen=True)
class StressFrontEnd:
    """cassandra-stress syntax: ``mixed ratio(write=9,read=1) duration=60s -rate ...``."""

    name: str = "stress"
    preload_example: str = "write -pop seq=1..N ..."

    def parse(self, command: str | Sequence[str], *, base_dir: Path | None = None) -> StressLoad:
        return StressLoad(parse_stress(command), base_dir)

    def compose(self, workload: str, measure: str, threads: int | None, rate: float | None) -> str:
        return compose_stress(workload, measure, threads, rate)

    def slug(self, command: str) -> str:
        return _slug(command)

    def wording(self, *, files_kept: bool) -> Wording:
        return Wording(files_kept=files_kept, terms=STRESS_TERMS)

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
        command = parse_stress(words)
        return stress_search_load(
            command,
            Connection(contact_points=command.contact_points(contact_points)),
            closed_loop=closed_loop,
            seed=seed,
            data_seed=data_seed,
            base_dir=base_dir,
        )


STRESS = StressFrontEnd()
