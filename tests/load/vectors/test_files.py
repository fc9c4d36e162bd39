"""The fvecs/ivecs and HDF5 readers against files the test writes; the cached dataset
files and their checks."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from casslab.errors import DatasetError
from casslab.load.vectors.files import check_files, dataset_files, save, synthetic_files
from casslab.load.vectors.hdf5 import read_hdf5, write_hdf5
from casslab.load.vectors.similarity import Similarity
from casslab.load.vectors.synthetic import clustered
from casslab.load.vectors.texmex import read_fvecs, read_ivecs, write_fvecs, write_ivecs


def test_fvecs_bytes_are_the_texmex_layout(tmp_path: Path) -> None:
    path = tmp_path / "a.fvecs"
    write_fvecs(path, [[1.0, 2.5], [-3.0, 0.0]])
    raw = path.read_bytes()
    assert len(raw) == 2 * (4 + 2 * 4)
    assert np.frombuffer(raw[:4], "<i4")[0] == 2
    assert np.frombuffer(raw[4:12], "<f4").tolist() == [1.0, 2.5]
    assert read_fvecs(path).tolist() == [[1.0, 2.5], [-3.0, 0.0]]


def test_ivecs_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "g.ivecs"
    write_ivecs(path, [[5, 1, 2], [0, 7, 9]])
    assert read_ivecs(path).tolist() == [[5, 1, 2], [0, 7, 9]]


def test_a_file_of_the_wrong_shape_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "bad.fvecs"
    write_fvecs(path, [[1.0, 2.0, 3.0]])
    path.write_bytes(path.read_bytes() + b"\0\0\0\0")
    with pytest.raises(DatasetError, match="not a whole number of such vectors"):
        read_fvecs(path)
    # two vectors of different dimensions, sizes that happen to divide
    mixed = np.array([3, 0, 0, 0, 2, 0, 0, 0], dtype="<i4")
    mixed.tofile(path)
    with pytest.raises(DatasetError, match="vector 1 has dimension 2, vector 0 has 3"):
        read_fvecs(path)
    path.write_bytes(b"")
    with pytest.raises(DatasetError, match="too short for one vector"):
        read_fvecs(path)
    with pytest.raises(DatasetError, match="not found"):
        read_fvecs(tmp_path / "none.fvecs")


def test_hdf5_round_trip_in_the_ann_benchmarks_layout(tmp_path: Path) -> None:
    data = clustered(count=60, dimension=6, queries=4, depth=5, similarity=Similarity.EUCLIDEAN)
    path = tmp_path / "d.hdf5"
    write_hdf5(path, data)
    back = read_hdf5(path)
    assert back.similarity is Similarity.EUCLIDEAN
    assert np.array_equal(back.base, data.base)
    assert np.array_equal(back.queries, data.queries)
    assert np.array_equal(back.neighbors, data.neighbors)
    import h5py

    with h5py.File(path) as f:
        assert f.attrs["distance"] == "euclidean"
        d = np.asarray(f["distances"])
    first = np.linalg.norm(data.base[data.neighbors[0]] - data.queries[0], axis=1)
    assert np.allclose(d[0], first, atol=1e-4)
    assert list(d[0]) == sorted(d[0])


def test_hdf5_without_the_layout_is_refused(tmp_path: Path) -> None:
    import h5py

    path = tmp_path / "x.hdf5"
    with h5py.File(path, "w") as f:
        f.create_dataset("train", data=np.zeros((3, 2), dtype=np.float32))
    with pytest.raises(DatasetError, match="no test, neighbors"):
        read_hdf5(path)
    (tmp_path / "t.hdf5").write_text("not hdf5")
    with pytest.raises(DatasetError, match="not an HDF5 file"):
        read_hdf5(tmp_path / "t.hdf5")


def test_dataset_files_check_each_other(tmp_path: Path) -> None:
    data = clustered(count=30, dimension=4, queries=3, depth=5)
    files = save(data, tmp_path)
    assert (files.count, files.dimension, files.query_count, files.depth) == (30, 4, 3, 5)
    write_fvecs(tmp_path / "q3.fvecs", np.zeros((3, 3)))
    with pytest.raises(DatasetError, match=r"dimension 4, the queries .* 3"):
        check_files(files.base, tmp_path / "q3.fvecs", files.ground_truth, Similarity.COSINE)
    write_ivecs(tmp_path / "g.ivecs", [[0, 1]])
    with pytest.raises(DatasetError, match=r"has 1 rows, the queries .* 3"):
        check_files(files.base, files.queries, tmp_path / "g.ivecs", Similarity.COSINE)
    write_ivecs(tmp_path / "g.ivecs", [[0], [1], [30]])
    with pytest.raises(DatasetError, match=r"names base row 30, but .* has 30 vectors"):
        check_files(files.base, files.queries, tmp_path / "g.ivecs", Similarity.COSINE)


def test_synthetic_files_are_made_once_then_read_from_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CASSLAB_CACHE", str(tmp_path))
    first = synthetic_files(count=200, dimension=8)
    assert first.base.parent.parent == tmp_path / "vectors"
    stamp = first.base.stat().st_mtime_ns
    again = dataset_files(None, count=200, dimension=8)
    assert again == first
    assert first.base.stat().st_mtime_ns == stamp


def test_texmex_names_and_hdf5_through_dataset_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CASSLAB_CACHE", str(tmp_path / "cache"))
    data = clustered(count=40, dimension=4, queries=3, depth=5)
    write_fvecs(tmp_path / "s_base.fvecs", data.base)
    write_fvecs(tmp_path / "s_query.fvecs", data.queries)
    write_ivecs(tmp_path / "s_groundtruth.ivecs", data.neighbors)
    files = dataset_files(tmp_path / "s_base.fvecs")
    assert (files.count, files.depth) == (40, 5)
    with pytest.raises(DatasetError, match=r"name the base file X_base\.fvecs"):
        dataset_files(tmp_path / "s_query.fvecs")
    write_hdf5(tmp_path / "d.hdf5", data)
    h = dataset_files(tmp_path / "d.hdf5")
    assert h.count == 40
    assert h.base.is_relative_to(tmp_path / "cache")
