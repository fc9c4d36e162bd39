"""The files casslab ships for users to run and copy: the studies' experiment files (and
the tune studies, capacity problems and profiles beside them) and the Grafana dashboard.

In an installed wheel they live inside the package (``casslab/_shipped/<kind>``, put there
by ``make wheel``); in a checkout, at its root (``experiments/``, ``dashboards/``). Listing
and copying are pure over a directory; only :func:`shipped_dir` knows where it is.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from casslab.errors import ConfigError
from casslab.record import Record

KINDS = ("experiments", "dashboards")
_PROFILE_WORD = re.compile(r"profile=([^\s\"']+\.ya?ml)")


def shipped_dir(kind: str) -> Path:
    """Where the shipped ``kind`` files are: inside the installed package, else the
    checkout's folder of that name."""
    package = Path(__file__).resolve().parent
    inside = package / "_shipped" / kind
    return inside if inside.is_dir() else package.parents[1] / kind


class ShippedFile(Record):
    """One shipped experiment file: its name (path under the folder, no ``.yaml``), and
    the first sentence of its opening comment."""

    name: str
    path: Path
    about: str


def first_sentence(text: str, width: int = 110) -> str:
    """The opening comment's first sentence (its lines joined), clipped to ``width``."""
    lines: list[str] = []
    for line in text.splitlines():
        if not line.startswith("#"):
            break
        words = line.lstrip("#").strip()
        if not words:
            if lines:
                break
            continue
        lines.append(words)
    joined = " ".join(lines)
    end = re.search(r"[.:](\s|$)", joined)
    sentence = joined[: end.start()] if end else joined
    return sentence if len(sentence) <= width else sentence[: width - 1].rstrip() + "…"


def listing(folder: Path) -> list[ShippedFile]:
    """Every experiment file under ``folder``, by name."""
    found = []
    # the studies at the top first, then the tune studies, capacity problems and profiles
    for path in sorted(folder.rglob("*.yaml"), key=lambda p: (p.parent != folder, p)):
        name = path.relative_to(folder).with_suffix("").as_posix()
        text = path.read_text(encoding="utf-8")
        found.append(ShippedFile(name=name, path=path, about=first_sentence(text)))
    return found


def copy(folder: Path, name: str, to: Path) -> list[Path]:
    """Copy shipped file ``name`` (and the profiles it names, at the same relative paths)
    into directory ``to``; refuses to overwrite. The files written."""
    known = {f.name: f for f in listing(folder)}
    chosen = known.get(name.removesuffix(".yaml"))
    if chosen is None:
        names = ", ".join(sorted(known))
        raise ConfigError(f"no shipped experiment {name!r}; the shipped ones are: {names}")
    sources = [chosen.path]
    targets = [to / chosen.path.name]
    for word in _PROFILE_WORD.findall(chosen.path.read_text(encoding="utf-8")):
        beside = (chosen.path.parent / word).resolve()  # read beside the file, as runs do
        if beside.is_file() and beside.is_relative_to(folder.resolve()) and ".." not in word:
            sources.append(beside)
            targets.append(to / word)
    present = [str(t) for t in targets if t.exists()]
    if present:
        raise ConfigError(
            f"{', '.join(present)} already exist(s); copy into another directory (--to DIR) "
            "or move the file(s) away"
        )
    for source, target in zip(sources, targets, strict=True):
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)
    return targets
