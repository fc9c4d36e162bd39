"""Run ``casslab`` in this process through its real entry point (:func:`casslab.cli.main.main`)
and judge what a hostile or careless input got back: the exit status, the message naming
the value, no secret, no traceback and no library's own words."""

from __future__ import annotations

import contextlib
import io
import os
import signal
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from casslab.cli.main import main
from cli_entry import flat

FOREIGN_WORDS = (
    "Traceback (most recent call last)",
    "errors.pydantic.dev",
    "validation error for",
    "Input should be",
    'in "<unicode string>"',
)
"""What a message in casslab's words never carries."""


@dataclass(frozen=True)
class Outcome:
    code: int
    out: str
    err: str

    @property
    def text(self) -> str:
        return flat(self.out + "\n" + self.err)


@dataclass(frozen=True)
class Case:
    """One hostile input: the command line, the files it names (written first, relative
    to the working folder), the environment it adds, what it must exit with, a value the
    message must name and a secret it must not print."""

    argv: tuple[str, ...]
    code: int
    names: str
    secret: str | None = None
    files: Mapping[str, str | bytes] = field(default_factory=dict)
    env: Mapping[str, str] = field(default_factory=dict)

    def __str__(self) -> str:
        return " ".join(self.argv)[:80]


@contextlib.contextmanager
def _environment(env: Mapping[str, str], cwd: Path) -> Iterator[None]:
    saved_env = dict(os.environ)
    saved_cwd = Path.cwd()
    saved_signals = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
    os.environ.update(env)
    os.environ["COLUMNS"] = "400"
    os.chdir(cwd)
    try:
        yield
    finally:
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)
        for signum, handler in saved_signals.items():
            signal.signal(signum, handler)


def run_main(argv: tuple[str, ...], cwd: Path, env: Mapping[str, str] | None = None) -> Outcome:
    """``casslab ARGV`` in ``cwd``: its exit status and what it printed."""
    out, err = io.StringIO(), io.StringIO()
    code = 0
    with (
        _environment(env or {}, cwd),
        contextlib.redirect_stdout(out),
        contextlib.redirect_stderr(err),
    ):
        saved_argv = sys.argv
        sys.argv = ["casslab", *argv]
        try:
            main()
        except SystemExit as done:
            code = done.code if isinstance(done.code, int) else 1
        finally:
            sys.argv = saved_argv
    return Outcome(code, out.getvalue(), err.getvalue())


def write_files(folder: Path, files: Mapping[str, str | bytes]) -> None:
    for name, content in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")


def problems(case: Case, outcome: Outcome) -> list[str]:
    """What is wrong with ``outcome`` for ``case``; empty when it is exemplary."""
    found: list[str] = []
    if outcome.code != case.code:
        found.append(f"exit {outcome.code}, expected {case.code}")
    if flat(case.names) not in outcome.text:
        found.append(f"the message does not name {case.names!r}")
    if case.secret is not None and case.secret in outcome.out + outcome.err:
        found.append(f"the secret {case.secret!r} is printed")
    for words in FOREIGN_WORDS:
        if words in outcome.out + outcome.err:
            found.append(f"the output carries {words!r}")
    return found


# An experiment file the hostile cases of experiment files start from (one value swapped).
EXPERIMENT = """\
name: hostile
cluster: {nodes: 1, heap: 512M}
schema:
  keyspace: keyspace1
  replication: {class: SimpleStrategy, replication_factor: 1}
factors:
  table.compaction: [STCS, LCS]
workload: "write"
measure: "duration=90s cl=ONE -rate threads=4"
iterations: 3
"""
REPLICATION = "{class: SimpleStrategy, replication_factor: 1}"


def swapped(old: str, new: str) -> str:
    """:data:`EXPERIMENT` with ``old`` (which it holds) replaced by ``new``."""
    assert old in EXPERIMENT
    return EXPERIMENT.replace(old, new)
