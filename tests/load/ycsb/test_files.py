"""The property files a YCSB command names: next to the experiment file, as given, shipped."""

from __future__ import annotations

from pathlib import Path

import pytest

from casslab.errors import ExperimentError
from casslab.load.ycsb.files import workload_file_reader as file_reader


def test_file_reader_looks_next_to_the_experiment_then_in_the_shipped_workloads(
    tmp_path: Path,
) -> None:
    (tmp_path / "mine").write_text("recordcount=10\n", encoding="utf-8")
    read = file_reader(tmp_path)
    assert read("mine") == "recordcount=10\n"
    assert "recordcount" in read("workloada")
    with pytest.raises(ExperimentError, match=r"nope: no such file \(nor relative to"):
        read("nope")
