"""The property files a YCSB command names (``-P``), read relative to a folder (an
experiment file's), then as given, then from the core workloads shipped with casslab."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from casslab.errors import ExperimentError
from casslab.load.ycsb.parse import BUILTIN_WORKLOADS, builtin_workload_text, read_property_file


def workload_file_reader(base_dir: Path | None) -> Callable[[str], str]:
    """Reads a file named in a command: relative to the experiment file, then as given,
    then a workload shipped with casslab (YCSB ``workloada`` .. ``workloadf``)."""

    def read(name: str) -> str:
        for path in ([base_dir / name] if base_dir else []) + [Path(name).expanduser()]:
            if path.exists():
                return read_property_file(path)
        if Path(name).name in BUILTIN_WORKLOADS:
            return builtin_workload_text(Path(name).name)
        where = f" (nor relative to {base_dir})" if base_dir else ""
        raise ExperimentError(
            f"{name}: no such file{where}; name a file, or one of the shipped workloads "
            f"{', '.join(BUILTIN_WORKLOADS)}"
        )

    return read
