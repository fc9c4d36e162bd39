"""Where a report or a comparison may write: inside its run directory (or ``compare``'s
``-o`` folder) once symlinks are followed, never through a link that leads elsewhere. Pure
but for looking at the paths."""

from __future__ import annotations

from pathlib import Path

from casslab.errors import ReportError


def inside(path: Path, root: Path, what: str = "report") -> Path:
    """``path`` when it stays inside ``root`` once symlinks are followed; a ReportError naming
    both otherwise (a ``figures`` link must not send files elsewhere)."""
    if not path.resolve().is_relative_to(root.resolve()):
        raise ReportError(
            f"{what} of {root}: {path} leads out of the run directory (to {path.resolve()}); "
            "casslab writes only inside it: remove the link and run again"
        )
    return path


def output_folder(out: Path, names: tuple[str, ...]) -> None:
    """Check ``compare``'s ``-o`` folder before anything is read: ``out`` is a directory or
    can be made one, and neither ``names`` nor their temporary files lead out of it."""
    if out.exists() and not out.is_dir():
        raise ReportError(
            f"compare -o {out}: is not a directory; name a folder (it is made when missing)"
        )
    for ancestor in (out, *out.parents):
        if ancestor.exists():
            if not ancestor.is_dir():
                raise ReportError(
                    f"compare -o {out}: {ancestor} is a file, not a directory; name a folder"
                )
            break
    for name in names:
        for file in (out / name, out / f"{name}.tmp"):
            if file.is_symlink():
                target = file.resolve()
                if not target.is_relative_to(out.resolve()):
                    raise ReportError(
                        f"compare -o {out}: {file} is a link leading out of it (to {target}); "
                        "casslab writes only inside it: remove the link and run again"
                    )
