"""Input files read with bounds: regular UTF-8 text files only, at most 4 MiB."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from casslab.input_files import MAX_INPUT_BYTES, InputFileError, read_input


def test_a_text_file_is_read(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text("name: x\n", encoding="utf-8")
    assert read_input(tmp_path / "a.yaml", what="experiment file") == "name: x\n"


@pytest.mark.parametrize(
    ("content", "said"),
    [
        (b"\xff\xfe", "not UTF-8 text (a byte at offset 0 is invalid)"),
        (b"a\x00b", "holds NUL bytes"),
        (b"x" * (MAX_INPUT_BYTES + 1), f"past casslab's limit of {MAX_INPUT_BYTES}"),
    ],
)
def test_other_content_is_refused_unquoted(tmp_path: Path, content: bytes, said: str) -> None:
    (tmp_path / "a.yaml").write_bytes(content)
    with pytest.raises(InputFileError) as raised:
        read_input(tmp_path / "a.yaml", what="experiment file")
    assert said in str(raised.value)
    assert str(tmp_path / "a.yaml") in str(raised.value)


def test_what_is_not_a_regular_file_is_refused(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "p")
    for path, kind in (
        (tmp_path / "p", "a named pipe"),
        (tmp_path, "a directory"),
        (Path("/dev/zero"), "a character device"),
    ):
        with pytest.raises(InputFileError, match=f"is {kind}"):
            read_input(path, what="user profile")
