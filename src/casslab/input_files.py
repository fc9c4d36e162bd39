"""Files a user names (an experiment, a profile, a ``-P`` property file, a capacity
problem), read with bounds: a regular file (never a FIFO, a device or a directory, which
would hang or never end), at most :data:`MAX_INPUT_BYTES`, UTF-8 text without NUL bytes.
A file that is not text is refused without quoting its content."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Final

from casslab.errors import CasslabError

MAX_INPUT_BYTES: Final = 4 * 1024 * 1024
"""4 MiB: far past any experiment, profile or problem file."""


class InputFileError(CasslabError):
    """A file named as input cannot be read as text (missing, not a regular file, too large,
    binary)."""


_KINDS = (
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISDIR, "a directory"),
)


def read_input(path: Path | str, *, what: str, fix: str = "check the path") -> str:
    """The text of the ``what`` file at ``path`` ("experiment file", "user profile"), or an
    :class:`InputFileError` naming the file, the reason and ``fix``."""
    file = Path(path).expanduser()
    try:
        info = os.stat(file)
    except OSError as error:
        raise InputFileError(f"{what} {file}: {error.strerror or error}; {fix}") from None
    if not stat.S_ISREG(info.st_mode):
        kind = next((name for test, name in _KINDS if test(info.st_mode)), "not a regular file")
        raise InputFileError(f"{what} {file}: is {kind}, not a regular file; name a file")
    if info.st_size > MAX_INPUT_BYTES:
        raise InputFileError(
            f"{what} {file}: {info.st_size} bytes, past casslab's limit of {MAX_INPUT_BYTES} "
            "(4 MiB) for an input file; is it the right file?"
        )
    try:
        with file.open("rb") as handle:
            data = handle.read(MAX_INPUT_BYTES + 1)
    except OSError as error:
        raise InputFileError(f"{what} {file}: {error.strerror or error}; {fix}") from None
    if len(data) > MAX_INPUT_BYTES:
        raise InputFileError(
            f"{what} {file}: past casslab's limit of {MAX_INPUT_BYTES} bytes (4 MiB) for an "
            "input file; is it the right file?"
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise InputFileError(
            f"{what} {file}: not UTF-8 text (a byte at offset {error.start} is invalid); "
            "is it the right file? save it as UTF-8"
        ) from None
    if "\x00" in text:
        raise InputFileError(
            f"{what} {file}: holds NUL bytes, so it is not a text file; is it the right file?"
        )
    return text
