"""The ann-benchmarks HDF5 layout: datasets ``train`` (base vectors, float32 n x d),
``test`` (queries, q x d), ``neighbors`` (int, q x depth: rows of ``train``, nearest
first) and ``distances`` (q x depth), and the file attribute ``distance`` (``angular``,
``euclidean`` or ``dot``)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from casslab.errors import DatasetError
from casslab.load.vectors.similarity import Similarity, scores
from casslab.load.vectors.synthetic import VectorDataset

# ann-benchmarks' metric names and Cassandra's similarity functions
_METRICS = {
    "angular": Similarity.COSINE,
    "cosine": Similarity.COSINE,
    "euclidean": Similarity.EUCLIDEAN,
    "l2": Similarity.EUCLIDEAN,
    "dot": Similarity.DOT_PRODUCT,
    "ip": Similarity.DOT_PRODUCT,
}
_NAMES = {Similarity.COSINE: "angular", Similarity.EUCLIDEAN: "euclidean"}


def read_hdf5(path: Path) -> VectorDataset:
    """The dataset of an ann-benchmarks file (arrays copied into memory)."""
    if not path.is_file():
        raise DatasetError(f"HDF5 dataset {path}: not found (or not a regular file)")
    import h5py  # only when an HDF5 file is read

    try:
        f = h5py.File(path, "r")
    except OSError as e:
        raise DatasetError(f"HDF5 dataset {path}: not an HDF5 file ({e})") from e
    with f:
        missing = [n for n in ("train", "test", "neighbors") if n not in f]
        if missing:
            raise DatasetError(
                f"HDF5 dataset {path}: no {', '.join(missing)}; the ann-benchmarks layout "
                f"has train, test, neighbors (and distances); this file has {', '.join(f)}"
            )
        base = np.asarray(f["train"], dtype=np.float32)
        queries = np.asarray(f["test"], dtype=np.float32)
        neighbors = np.asarray(f["neighbors"], dtype=np.int32)
        metric = str(f.attrs.get("distance", "angular"))
    if base.ndim != 2 or queries.ndim != 2 or base.shape[1] != queries.shape[1]:
        raise DatasetError(
            f"HDF5 dataset {path}: train {base.shape} and test {queries.shape} must be 2-D "
            "arrays of vectors of one dimension"
        )
    if neighbors.ndim != 2 or neighbors.shape[0] != queries.shape[0]:
        raise DatasetError(
            f"HDF5 dataset {path}: neighbors {neighbors.shape} must have one row per test "
            f"vector ({queries.shape[0]})"
        )
    similarity = _METRICS.get(metric.lower())
    if similarity is None:
        raise DatasetError(
            f"HDF5 dataset {path}: distance {metric!r} is none of Cassandra's similarity "
            f"functions; known: {', '.join(sorted(_METRICS))}"
        )
    return VectorDataset(base=base, queries=queries, neighbors=neighbors, similarity=similarity)


def write_hdf5(path: Path, dataset: VectorDataset) -> None:
    """Write ``dataset`` in the ann-benchmarks layout (``distances``: 1 - similarity for
    angular and dot, the Euclidean distance otherwise)."""
    s = scores(dataset.base, dataset.queries, dataset.similarity)
    near = np.take_along_axis(s, dataset.neighbors.astype(np.int64), axis=1)
    if dataset.similarity is Similarity.EUCLIDEAN:
        distances = np.sqrt(np.maximum(-near, 0))
    else:
        distances = 1 - near
    import h5py  # only when an HDF5 file is written

    with h5py.File(path, "w") as f:
        f.attrs["distance"] = _NAMES.get(dataset.similarity, "dot")
        f.create_dataset("train", data=dataset.base)
        f.create_dataset("test", data=dataset.queries)
        f.create_dataset("neighbors", data=dataset.neighbors)
        f.create_dataset("distances", data=distances.astype(np.float32))
