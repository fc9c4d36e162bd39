"""The load front-end seam: a front end defined only here, one folder's worth of code and
one ``register`` line, runs through ``casslab run`` (the fake engine, a fake cluster)
without any change to the experiment, the runner or the CLI."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from casslab.cli.main import app
from casslab.cluster.model import BackendKind
from casslab.cluster.registry import BACKENDS
from casslab.engine_contract.workload_spec import Connection, WorkloadSpec
from casslab.errors import WorkloadSyntaxError
from casslab.experiment.run import recording
from casslab.load import engine, front_ends
from casslab.load.command_words import clean_slug
from casslab.load.engine import Wording
from casslab.load.front_end import SearchLoad
from fakes import FakeBackend, engine_runs, install_fake_engine

# "echo write N": N sequential keys written once each, at one thread (or the level's)
EXPERIMENT = """
name: echo-seam
workload: "echo write 5"
measure: "threads=1"
factors: {threads: [1, 3]}
iterations: 1
order: sequential
"""


@dataclass(frozen=True)
class EchoLoad:
    keys: int
    threads: int

    @property
    def password_env(self) -> str | None:
        return None

    def contact_points(self, default: Sequence[str]) -> list[str]:
        return list(default)

    def to_spec(self, connection: Connection, *, seed: int = 0, data_seed: int = 0) -> WorkloadSpec:
        return WorkloadSpec.model_validate(
            {
                "connection": connection.model_dump(),
                "operations": [
                    {
                        "name": "write",
                        "kind": "write",
                        "weight": 1,
                        "statements": [
                            {
                                "cql": "INSERT INTO ks.t (k, v) VALUES (?, ?)",
                                "binds": [
                                    {"kind": "key_blob", "column": "key"},
                                    {"kind": "blob", "column": "v"},
                                ],
                            }
                        ],
                    }
                ],
                "keys": {"kind": "seq", "min": 1, "max": self.keys},
                "rate": {"mode": "closed", "threads": self.threads},
                "stop": {"ops": self.keys},
                "seed": seed,
                "data_seed": data_seed,
            }
        )

    def file_problem(self) -> str | None:
        return None


@dataclass(frozen=True)
class EchoFrontEnd:
    """``echo write N [threads=T]``: the smallest syntax there is."""

    name: str = "echo"
    preload_example: str = "echo write N"

    def parse(self, command: str | Sequence[str], *, base_dir: Path | None = None) -> EchoLoad:
        words = command.split() if isinstance(command, str) else list(command)
        words = words[1:] if words[:1] == ["echo"] else words
        if len(words) < 2 or words[0] != "write" or not words[1].isdigit():
            raise WorkloadSyntaxError(f"echo: expected 'write N', got {' '.join(words)!r}")
        options = dict(word.split("=", 1) for word in words[2:])
        return EchoLoad(keys=int(words[1]), threads=int(options.get("threads", "1")))

    def compose(self, workload: str, measure: str, threads: int | None, rate: float | None) -> str:
        text = f"{workload} {measure}".strip()
        return f"{text.split(' threads=')[0]} threads={threads}" if threads else text

    def slug(self, command: str) -> str:
        return clean_slug(command)

    def wording(self, *, files_kept: bool) -> Wording:
        return Wording(files_kept=files_kept)

    def search_load(self, words: Sequence[str], **_: Any) -> SearchLoad:
        raise WorkloadSyntaxError("echo: no capacity search")


@pytest.fixture
def echo_registered() -> Iterator[None]:
    front_ends.register(EchoFrontEnd())  # the one registration line a front end needs
    yield
    front_ends.FRONT_ENDS.pop("echo")


def test_a_front_end_defined_here_runs_through_casslab_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, echo_registered: None
) -> None:
    runs = install_fake_engine(tmp_path, monkeypatch)
    monkeypatch.setitem(BACKENDS, BackendKind.LOCAL, FakeBackend)
    monkeypatch.setattr(recording, "default_sources", lambda _cluster, _pid=None: [])
    monkeypatch.setenv("CASSLAB_HOME", str(tmp_path / "home"))
    file = tmp_path / "echo.yaml"
    file.write_text(EXPERIMENT, encoding="utf-8")
    results = tmp_path / "results"

    planned = CliRunner().invoke(app, ["plan", str(file)])
    assert planned.exit_code == 0, planned.output
    ran = CliRunner().invoke(
        app, ["run", str(file), "--results", str(results), "--jvm-warmup", "0"]
    )

    assert ran.exit_code == 0, ran.output
    summaries = sorted(results.glob("echo-seam/*/trials/*/*/summary.json"))
    assert len(summaries) == 2
    assert {json.loads(s.read_text())["status"] for s in summaries} == {"ok"}
    plan = json.loads(next(results.glob("echo-seam/*/plan.json")).read_text())
    workloads = {t["workload"]["text"] for t in plan["plan"]["trials"]}
    assert workloads == {"echo write 5 threads=1", "echo write 5 threads=3"}
    assert {t["workload"]["tool"] for t in plan["plan"]["trials"]} == {"echo"}
    assert [run["ops"] for run in engine_runs(runs)] == [1, 1]  # one measured run per trial


def test_an_unregistered_front_end_is_not_guessed(echo_registered: None) -> None:
    front_ends.FRONT_ENDS.pop("echo")
    assert front_ends.name_of("echo write 5") == front_ends.DEFAULT
    front_ends.register(EchoFrontEnd())
    assert front_ends.front_end_for("echo write 5").name == "echo"
    with pytest.raises(Exception, match=r"'ehco' is not known \(did you mean 'echo'\?\)"):
        front_ends.front_end("ehco")


def test_casslab_run_asks_the_engine_about_each_distinct_spec_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``casslab run`` checks every spec before it makes its run directory; its runner's
    own check asks the engine nothing more."""
    install_fake_engine(tmp_path, monkeypatch)
    monkeypatch.setitem(BACKENDS, BackendKind.LOCAL, FakeBackend)
    monkeypatch.setattr(recording, "default_sources", lambda _cluster, _pid=None: [])
    checked: list[str] = []
    real_check = engine.check

    def counted(spec: WorkloadSpec, workdir: Path, **kwargs: Any) -> None:
        checked.append(spec.model_dump_json())
        real_check(spec, workdir, **kwargs)

    monkeypatch.setattr(engine, "check", counted)
    file = tmp_path / "two.yaml"
    file.write_text(
        'name: two\npreload: "write n=50"\nworkload: write\nmeasure: "n=20"\n'
        "factors: {threads: [1, 2]}\niterations: 1\norder: sequential\n",
        encoding="utf-8",
    )
    ran = CliRunner().invoke(
        app, ["run", str(file), "--results", str(tmp_path / "r"), "--jvm-warmup", "0"]
    )
    assert ran.exit_code == 0, ran.output
    assert len(checked) == len(set(checked)) == 3  # the preload and two measured commands
