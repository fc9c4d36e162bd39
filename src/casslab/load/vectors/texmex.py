"""TEXMEX vector files (the SIFT/GIST corpus format): ``.fvecs`` holds float32 vectors,
``.ivecs`` int32 ones (ground truth: neighbour row numbers). Each vector is its dimension
as a little-endian int32, then that many 4-byte values; every vector of a file has the
same dimension. Reading memory-maps the file; nothing is copied until used."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import numpy as np
import numpy.typing as npt

from casslab.errors import DatasetError

Kind = Literal["fvecs", "ivecs"]
_DTYPES = {"fvecs": np.dtype("<f4"), "ivecs": np.dtype("<i4")}


def read_vecs(path: Path, kind: Kind) -> npt.NDArray[np.float32] | npt.NDArray[np.int32]:
    """The ``(n, d)`` array of a ``.fvecs``/``.ivecs`` file, memory-mapped (read-only).

    DatasetError when the file is missing, empty, or not a sequence of vectors of one
    dimension (its size, or a vector's dimension field, says otherwise)."""
    if not path.is_file():
        raise DatasetError(f"vector file {path}: not found (or not a regular file)")
    size = path.stat().st_size
    if size < 4:
        raise DatasetError(
            f"vector file {path}: {size} bytes, too short for one vector; a .{kind} file "
            "holds vectors written as <int32 dimension><dimension 4-byte values>"
        )
    words = np.memmap(path, dtype="<i4", mode="r", shape=(size // 4,))
    dim = int(words[0])
    if dim < 1 or size % (4 * (dim + 1)) != 0:
        raise DatasetError(
            f"vector file {path}: its first vector says dimension {dim}, but the file's "
            f"{size} bytes are not a whole number of such vectors ({4 * (dim + 1)} bytes "
            f"each); is it a .{kind} file (TEXMEX format)?"
        )
    rows = words.reshape(size // (4 * (dim + 1)), dim + 1)
    bad = np.flatnonzero(rows[:, 0] != dim)
    if len(bad):
        raise DatasetError(
            f"vector file {path}: vector {int(bad[0])} has dimension {int(rows[bad[0], 0])}, "
            f"vector 0 has {dim}; every vector of a .{kind} file has the same dimension"
        )
    values = np.memmap(path, dtype=_DTYPES[kind], mode="r", shape=rows.shape)
    out = values[:, 1:]
    return out  # type: ignore[return-value]


def read_fvecs(path: Path) -> npt.NDArray[np.float32]:
    return read_vecs(path, "fvecs")  # type: ignore[return-value]


def read_ivecs(path: Path) -> npt.NDArray[np.int32]:
    return read_vecs(path, "ivecs")  # type: ignore[return-value]


def write_vecs(path: Path, vectors: npt.ArrayLike, kind: Kind) -> None:
    """Write an ``(n, d)`` array as a ``.fvecs``/``.ivecs`` file (replacing it)."""
    array = np.asarray(vectors, dtype=_DTYPES[kind])
    if array.ndim != 2 or array.shape[1] < 1:
        raise DatasetError(
            f"vector file {path}: {array.shape} is not a 2-D array of vectors of dimension >= 1"
        )
    n, d = array.shape
    out = np.empty((n, d + 1), dtype="<i4")
    out[:, 0] = d
    out[:, 1:] = array.view("<i4")
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    out.tofile(tmp)
    tmp.replace(path)


def write_fvecs(path: Path, vectors: npt.ArrayLike) -> None:
    write_vecs(path, vectors, "fvecs")


def write_ivecs(path: Path, vectors: npt.ArrayLike) -> None:
    write_vecs(path, vectors, "ivecs")
