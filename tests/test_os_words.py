"""The operating system's refusals in casslab's words: the path, the meaning and the fix,
never ``[Errno N]``."""

from __future__ import annotations

import errno

import pytest

from casslab.os_words import os_error_words


@pytest.mark.parametrize(
    ("error", "expected"),
    [
        (
            FileExistsError(errno.EEXIST, "File exists", "/r/figures"),
            "/r/figures is in the way: it exists and is not a directory; move or remove it, "
            "or choose another folder",
        ),
        (
            PermissionError(errno.EACCES, "Permission denied", "/r/x.json.tmp"),
            "permission denied on /r/x.json.tmp; make the folder writable for this user, or "
            "choose another folder",
        ),
        (
            OSError(errno.ENOSPC, "No space left on device"),
            "the disk holding /r/x.json is full; free space on it, or choose another disk",
        ),
        (
            OSError(errno.EROFS, "Read-only file system", "/r/x.json.tmp"),
            "/r/x.json.tmp is on a read-only file system; choose a folder on a writable disk",
        ),
        (
            NotADirectoryError(errno.ENOTDIR, "Not a directory", "/r/a/b"),
            "a part of /r/a/b is a file, not a directory; move or remove that file, or choose "
            "another folder",
        ),
        (OSError(errno.EIO, "Input/output error"), "/r/x.json: input/output error"),
    ],
)
def test_words_name_the_path_the_meaning_and_the_fix(error: OSError, expected: str) -> None:
    words = os_error_words(error, "/r/x.json")
    assert words == expected
    assert "Errno" not in words
