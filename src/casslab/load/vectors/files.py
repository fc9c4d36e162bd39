"""A vector dataset as the load engine reads it: a base ``.fvecs`` (row i is written as
key i + 1), a query ``.fvecs`` and a ground-truth ``.ivecs``, checked against each other.

:func:`dataset_files` resolves what a profile names: nothing (the default synthetic
clustered set, generated once and cached under ``$CASSLAB_CACHE/vectors``), an
ann-benchmarks ``.hdf5`` file (converted once into the cache) or TEXMEX files.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from casslab.errors import DatasetError
from casslab.load.vectors.dataset_terms import DEFAULT_COUNT, DEFAULT_DIMENSION, DEFAULT_QUERIES
from casslab.load.vectors.hdf5 import read_hdf5
from casslab.load.vectors.similarity import Similarity
from casslab.load.vectors.synthetic import VectorDataset, clustered
from casslab.load.vectors.texmex import read_fvecs, read_ivecs, write_fvecs, write_ivecs
from casslab.paths import cache_root
from casslab.record import Record

DEFAULT_DEPTH = 100


class DatasetFiles(Record):
    """The three files and their shape (checked when made)."""

    base: Path
    queries: Path
    ground_truth: Path
    count: int  # base vectors
    dimension: int
    query_count: int
    depth: int  # true neighbours per query
    similarity: Similarity


def check_files(
    base: Path, queries: Path, ground_truth: Path, similarity: Similarity
) -> DatasetFiles:
    """The files' shapes, or DatasetError naming the file that does not fit."""
    b, q, g = read_fvecs(base), read_fvecs(queries), read_ivecs(ground_truth)
    if b.shape[1] != q.shape[1]:
        raise DatasetError(
            f"vector dataset: the base vectors ({base}) have dimension {b.shape[1]}, the "
            f"queries ({queries}) {q.shape[1]}; both must have the same"
        )
    if g.shape[0] != q.shape[0]:
        raise DatasetError(
            f"vector dataset: the ground truth ({ground_truth}) has {g.shape[0]} rows, the "
            f"queries ({queries}) {q.shape[0]}; it needs one row of neighbours per query"
        )
    top = int(g.max()) if g.size else 0
    if int(g.min()) < 0 or top >= b.shape[0]:
        raise DatasetError(
            f"vector dataset: the ground truth ({ground_truth}) names base row {top}, but "
            f"{base} has {b.shape[0]} vectors (rows 0..{b.shape[0] - 1})"
        )
    return DatasetFiles(
        base=base,
        queries=queries,
        ground_truth=ground_truth,
        count=int(b.shape[0]),
        dimension=int(b.shape[1]),
        query_count=int(q.shape[0]),
        depth=int(g.shape[1]),
        similarity=similarity,
    )


def save(dataset: VectorDataset, directory: Path) -> DatasetFiles:
    """Write ``dataset`` as ``base.fvecs``, ``query.fvecs``, ``groundtruth.ivecs``."""
    write_fvecs(directory / "base.fvecs", dataset.base)
    write_fvecs(directory / "query.fvecs", dataset.queries)
    write_ivecs(directory / "groundtruth.ivecs", dataset.neighbors)
    return check_files(
        directory / "base.fvecs",
        directory / "query.fvecs",
        directory / "groundtruth.ivecs",
        dataset.similarity,
    )


def _cached(directory: Path, similarity: Similarity) -> DatasetFiles | None:
    names = ("base.fvecs", "query.fvecs", "groundtruth.ivecs")
    if not all((directory / n).is_file() for n in names):
        return None
    base, queries, truth = (directory / n for n in names)
    return check_files(base, queries, truth, similarity)


def synthetic_files(
    *,
    count: int = DEFAULT_COUNT,
    dimension: int = DEFAULT_DIMENSION,
    similarity: Similarity = Similarity.COSINE,
    seed: int = 1,
) -> DatasetFiles:
    """The synthetic clustered set of that shape, generated once into the cache."""
    name = f"synthetic-{count}x{dimension}-{similarity.value.lower()}-seed{seed}"
    directory = cache_root() / "vectors" / name
    found = _cached(directory, similarity)
    if found is not None:
        return found
    data = clustered(
        count=count,
        dimension=dimension,
        queries=DEFAULT_QUERIES,
        depth=DEFAULT_DEPTH,
        similarity=similarity,
        seed=seed,
    )
    return save(data, directory)


def hdf5_files(path: Path) -> DatasetFiles:
    """An ann-benchmarks file, converted once into the cache (keyed by its path, size
    and modification time)."""
    if not path.is_file():
        raise DatasetError(f"HDF5 dataset {path}: not found (or not a regular file)")
    st = path.resolve().stat()
    key = hashlib.sha256(f"{path.resolve()}:{st.st_size}:{st.st_mtime_ns}".encode()).hexdigest()
    directory = cache_root() / "vectors" / f"{path.stem}-{key[:12]}"
    data = read_hdf5(path)
    return _cached(directory, data.similarity) or save(data, directory)


def texmex_files(base: Path, similarity: Similarity) -> DatasetFiles:
    """TEXMEX files named as the corpus names them: ``X_base.fvecs`` beside
    ``X_query.fvecs`` and ``X_groundtruth.ivecs``."""
    if not base.name.endswith("_base.fvecs"):
        raise DatasetError(
            f"vector dataset {base}: name the base file X_base.fvecs, with X_query.fvecs and "
            "X_groundtruth.ivecs beside it (the TEXMEX corpus's names), or give an .hdf5 file"
        )
    stem = base.name[: -len("_base.fvecs")]
    return check_files(
        base,
        base.with_name(f"{stem}_query.fvecs"),
        base.with_name(f"{stem}_groundtruth.ivecs"),
        similarity,
    )


def dataset_files(
    path: Path | None,
    *,
    similarity: Similarity = Similarity.COSINE,
    count: int = DEFAULT_COUNT,
    dimension: int = DEFAULT_DIMENSION,
) -> DatasetFiles:
    """What a profile's ``vectors: dataset:`` names (None: the synthetic set)."""
    if path is None:
        return synthetic_files(count=count, dimension=dimension, similarity=similarity)
    if path.suffix.lower() in (".hdf5", ".h5"):
        return hdf5_files(path)
    if path.suffix.lower() == ".fvecs":
        return texmex_files(path, similarity)
    raise DatasetError(
        f"vector dataset {path}: not an .hdf5 (ann-benchmarks) or X_base.fvecs (TEXMEX) file"
    )
