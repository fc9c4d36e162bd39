"""Where the load engine executable is, installed or in a checkout.

Looked for, in order: ``$CASSLAB_ENGINE`` (a user's explicit choice wins over any
install), the scripts directory of the Python environment casslab runs in (where a wheel
install - ``pipx``, ``uv tool``, ``pip`` - puts ``casslab-engine`` next to ``casslab``),
then the release build of the checkout this module lives in (development). The error
names every place looked at and what each held.
"""

from __future__ import annotations

import os
import sys
import sysconfig
from collections.abc import Mapping, Sequence
from pathlib import Path

from casslab.errors import EngineError
from casslab.record import Record

ENGINE_ENV = "CASSLAB_ENGINE"
ENGINE_NAME = "casslab-engine"


class Place(Record):
    """One place the engine may be, and what it is called there."""

    path: Path
    said_as: str  # "$CASSLAB_ENGINE", "the environment's scripts directory", ...


def checkout_root() -> Path:
    """The checkout this module would live in (``<root>/src/casslab/load/engine_finder.py``);
    in an installed wheel, a directory with no ``target`` in it."""
    return Path(__file__).resolve().parents[3]


def scripts_dirs() -> list[Path]:
    """Where a wheel install puts the engine: the binary itself (``casslab.scripts`` in
    the environment's site-packages, beside the OpenSSL it was built with, in
    ``casslab.libs``), then the environment's scripts directory and the running
    interpreter's (a ``pipx`` venv's ``bin``), whose ``casslab-engine`` is a small launcher
    of that binary."""
    found = [
        Path(sysconfig.get_path("platlib")) / "casslab.scripts",
        Path(sysconfig.get_path("scripts")),
        Path(sys.executable).parent,
    ]
    return list(dict.fromkeys(found))


def places(env: Mapping[str, str], scripts: Sequence[Path], checkout: Path) -> list[Place]:
    """Where to look, in order (pure)."""
    if env.get(ENGINE_ENV):
        return [Place(path=Path(env[ENGINE_ENV]), said_as=f"${ENGINE_ENV}")]
    looked = [
        Place(path=d / ENGINE_NAME, said_as="the environment's scripts directory") for d in scripts
    ]
    return [
        *looked,
        Place(
            path=checkout / "target" / "release" / ENGINE_NAME,
            said_as="the checkout's release build",
        ),
    ]


def runnable(path: Path) -> bool:
    return path.is_file() and os.access(path, os.X_OK)


def find(
    env: Mapping[str, str] | None = None,
    scripts: Sequence[Path] | None = None,
    checkout: Path | None = None,
) -> Path:
    """The engine executable, or an :class:`EngineError` naming every place looked at."""
    looked = places(
        os.environ if env is None else env,
        scripts_dirs() if scripts is None else scripts,
        checkout_root() if checkout is None else checkout,
    )
    for place in looked:
        if runnable(place.path):
            return place.path
    where = "; ".join(f"{p.said_as}: {p.path}" for p in looked)
    root = checkout_root() if checkout is None else checkout
    fix = (
        f"set {ENGINE_ENV} to an executable engine, or unset it"
        if len(looked) == 1
        else f"reinstall casslab from its wheel (it carries the engine), or run `make engine` "
        f"in a checkout ({root}), or set {ENGINE_ENV} to the binary"
    )
    raise EngineError(f"load engine not found, looked at {where}; {fix}")
