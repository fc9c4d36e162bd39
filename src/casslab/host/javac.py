"""Small Java classes casslab ships as source and compiles once with the JDK's ``javac``
into ``~/.cache/casslab/<kind>/<digest of source and classpath>/`` (the JMX metrics helper,
the nodes' clock): compiled into a private directory and renamed into place, so two
casslab processes compiling at once do not collide."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path

from casslab.errors import SetupError


def cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "casslab"


def compiled(
    source: str,
    class_name: str,
    kind: str,
    java: str,
    *,
    classpath: Sequence[Path] = (),
    release: str = "11",
    package: str = "",
) -> Path:
    """The directory holding ``class_name`` (in ``package``, e.g. ``casslab``) compiled
    from ``source`` against ``classpath``, compiling it on first use with the ``javac``
    beside ``java`` (else on PATH); a :class:`SetupError` naming javac's own message when
    it fails."""
    key = "\0".join([source, release, *map(str, classpath)])
    directory = cache_root() / kind / hashlib.sha256(key.encode()).hexdigest()[:16]
    relative = Path(*package.split("."), f"{class_name}.class") if package else None
    target = directory / (relative or f"{class_name}.class")
    if target.exists():
        return directory
    javac = Path(java).with_name("javac")
    if not javac.exists():
        javac = Path(shutil.which("javac") or "javac")
    directory.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=".build-", dir=directory.parent))
    src = work / f"{class_name}.java"
    src.write_text(source)
    command = [str(javac), "--release", release, "-d", str(work)]
    if classpath:
        command += ["-cp", os.pathsep.join(map(str, classpath))]
    try:
        subprocess.run([*command, str(src)], check=True, capture_output=True, timeout=120)
        src.unlink()
        os.replace(work, directory)
    except (OSError, subprocess.SubprocessError) as error:
        shutil.rmtree(work, ignore_errors=True)
        if target.exists():  # another process won the race
            return directory
        said = getattr(error, "stderr", b"") or b""
        detail = said.decode(errors="replace").strip() if isinstance(said, bytes) else str(said)
        raise SetupError(
            f"compiling casslab's {kind} class with {javac}: {detail or error}; install a JDK "
            "(not a JRE)"
        ) from error
    return directory
