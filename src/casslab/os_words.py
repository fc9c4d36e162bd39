"""An operating system's refusal in casslab's words: what went wrong with which path, and
the fix, instead of ``[Errno 17] File exists: '...'`` (pure)."""

from __future__ import annotations

import errno
import os
from pathlib import Path

_WORDS: dict[int, tuple[str, str]] = {
    errno.EEXIST: (
        "{name} is in the way: it exists and is not a directory",
        "move or remove it, or choose another folder",
    ),
    errno.ENOTDIR: (
        "a part of {name} is a file, not a directory",
        "move or remove that file, or choose another folder",
    ),
    errno.EISDIR: ("{name} is a directory", "remove it or choose another name"),
    errno.EACCES: (
        "permission denied on {name}",
        "make the folder writable for this user, or choose another folder",
    ),
    errno.EPERM: (
        "operation not permitted on {name}",
        "make the folder writable for this user, or choose another folder",
    ),
    errno.EROFS: ("{name} is on a read-only file system", "choose a folder on a writable disk"),
    errno.ENOSPC: ("the disk holding {name} is full", "free space on it, or choose another disk"),
    errno.EDQUOT: ("the disk quota for {name} is used up", "free space, or choose another disk"),
    errno.ENAMETOOLONG: ("the name {name} is too long", "choose a shorter path"),
    errno.ELOOP: ("{name} leads through a loop of symbolic links", "fix the links"),
    errno.ENOENT: ("{name} does not exist", "check the path"),
}


def os_error_words(error: OSError, path: Path | str) -> str:
    """``<what went wrong>; <fix>`` for ``error`` while working on ``path``: the path the
    system named when it named one (a parent in the way, the temporary file), else
    ``path``; the errno's meaning in words, never ``[Errno N]``."""
    name = str(error.filename) if error.filename is not None else str(path)
    known = _WORDS.get(error.errno) if error.errno is not None else None
    if known is not None:
        what, fix = known
        return f"{what.format(name=name)}; {fix}"
    meaning = os.strerror(error.errno) if error.errno is not None else str(error)
    return f"{name}: {meaning[:1].lower()}{meaning[1:]}"
