"""Long-format Parquet storage of samples and gaps.

Layout for ``-o metrics.parquet``:

* while recording, every flush writes one part file into ``metrics.parquet.parts/``
  (``samples-NNNNNN.parquet``, ``gaps-NNNNNN.parquet``), so a crash loses at most the
  samples since the last flush;
* ``close()`` merges the parts into ``metrics.parquet`` (time, node, metric, value) and
  ``metrics.gaps.parquet`` (time, node, source, error), then removes the parts directory.

:func:`load` reads the merged file and any parts left by a crash.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from casslab.errors import MetricsError
from casslab.metrics.source import Gap, Sample

SCHEMA_VERSION = 1

SAMPLES_SCHEMA = pa.schema(
    [
        ("time", pa.float64()),
        ("node", pa.string()),
        ("metric", pa.string()),
        ("value", pa.float64()),
    ],
    metadata={"casslab.metrics.schema_version": str(SCHEMA_VERSION)},
)
GAPS_SCHEMA = pa.schema(
    [
        ("time", pa.float64()),
        ("node", pa.string()),
        ("source", pa.string()),
        ("error", pa.string()),
    ],
    metadata={"casslab.metrics.schema_version": str(SCHEMA_VERSION)},
)


def gaps_path(path: Path) -> Path:
    """``metrics.parquet`` -> ``metrics.gaps.parquet``."""
    return path.with_name(path.stem + ".gaps" + path.suffix)


def parts_dir(path: Path) -> Path:
    return path.with_name(path.name + ".parts")


def _samples_table(samples: list[Sample]) -> pa.Table:
    return pa.table(
        {
            "time": pa.array([s.time for s in samples], pa.float64()),
            "node": pa.array([s.node for s in samples], pa.string()),
            "metric": pa.array([s.metric for s in samples], pa.string()),
            "value": pa.array([s.value for s in samples], pa.float64()),
        },
        schema=SAMPLES_SCHEMA,
    )


def _gaps_table(gaps: list[Gap]) -> pa.Table:
    return pa.table(
        {
            "time": pa.array([g.time for g in gaps], pa.float64()),
            "node": pa.array([g.node for g in gaps], pa.string()),
            "source": pa.array([g.source for g in gaps], pa.string()),
            "error": pa.array([g.error for g in gaps], pa.string()),
        },
        schema=GAPS_SCHEMA,
    )


def _atomic_write(table: pa.Table, path: Path) -> None:
    tmp = path.with_name("." + path.name + ".tmp")
    pq.write_table(table, tmp, compression="zstd")
    os.replace(tmp, path)


class ParquetSink:
    """Appends samples and gaps to part files; ``close()`` merges them into the final file."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._parts = parts_dir(self.path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._parts.mkdir(exist_ok=True)
        except OSError as e:
            raise MetricsError(
                f"creating the metrics output {self.path}: {e}; choose a writable path"
            ) from e
        # continue numbering after the part files a crashed recorder left
        self._n = max(
            (int(f.stem.rsplit("-", 1)[1]) for f in self._parts.glob("*-*.parquet")), default=0
        )
        self.rows_written = 0
        self.gaps_written = 0

    def write(self, samples: list[Sample], gaps: list[Gap]) -> None:
        """Write one part file for ``samples`` and one for ``gaps`` (if any)."""
        if not samples and not gaps:
            return
        self._n += 1
        try:
            if samples:
                _atomic_write(
                    _samples_table(samples), self._parts / f"samples-{self._n:06d}.parquet"
                )
            if gaps:
                _atomic_write(_gaps_table(gaps), self._parts / f"gaps-{self._n:06d}.parquet")
        except OSError as e:
            raise MetricsError(f"writing metrics part file under {self._parts}: {e}") from e
        self.rows_written += len(samples)
        self.gaps_written += len(gaps)

    def close(self) -> None:
        """Merge the part files into ``path`` and its gaps file; remove the parts."""
        try:
            samples = _read_parts(self._parts, "samples", SAMPLES_SCHEMA)
            gaps = _read_parts(self._parts, "gaps", GAPS_SCHEMA)
            if self.path.exists():
                samples = pa.concat_tables([pq.read_table(self.path), samples])
            _atomic_write(samples.sort_by([("time", "ascending")]), self.path)
            gp = gaps_path(self.path)
            if gp.exists():
                gaps = pa.concat_tables([pq.read_table(gp), gaps])
            _atomic_write(gaps.sort_by([("time", "ascending")]), gp)
            shutil.rmtree(self._parts)
        except (OSError, pa.ArrowException) as e:
            raise MetricsError(
                f"merging metrics part files in {self._parts} into {self.path}: {e}; "
                "the part files are kept, metrics.load() still reads them"
            ) from e


def _read_parts(d: Path, kind: str, schema: pa.Schema) -> pa.Table:
    files = sorted(d.glob(f"{kind}-*.parquet")) if d.exists() else []
    tables = [pq.read_table(f).cast(schema) for f in files]
    if not tables:
        return schema.empty_table()
    return pa.concat_tables(tables)


def _load(path: Path, kind: str, schema: pa.Schema, final: Path) -> pd.DataFrame:
    tables = []
    if final.exists():
        tables.append(pq.read_table(final).cast(schema))
    tables.append(_read_parts(parts_dir(path), kind, schema))
    table = pa.concat_tables(tables).sort_by([("time", "ascending")])
    frame: pd.DataFrame = table.to_pandas()
    return frame


def load(path: str | Path) -> pd.DataFrame:
    """Samples recorded at ``path`` as a frame with columns time (Unix s), node, metric,
    value; includes part files a crashed recorder left behind."""
    p = Path(path)
    if not p.exists() and not parts_dir(p).exists():
        raise MetricsError(f"loading metrics: {p} does not exist; give the file written by record")
    return _load(p, "samples", SAMPLES_SCHEMA, p)


def load_gaps(path: str | Path) -> pd.DataFrame:
    """Gaps recorded next to ``path``: columns time, node, source, error."""
    p = Path(path)
    return _load(p, "gaps", GAPS_SCHEMA, gaps_path(p))
