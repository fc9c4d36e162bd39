"""The per-trial table as file contents: ``trials.parquet`` and ``trials.csv`` (pure).

:func:`casslab.report.write_report` writes what these return.
"""

from __future__ import annotations

import io

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

TABLE_SCHEMA_VERSION = 1


def trials_parquet(frame: pd.DataFrame) -> bytes:
    """``frame`` (one row per trial) as Parquet bytes, with a schema version in its metadata."""
    table = pa.Table.from_pandas(frame, preserve_index=False)
    metadata = dict(table.schema.metadata or {})
    metadata[b"casslab.trials.schema_version"] = str(TABLE_SCHEMA_VERSION).encode()
    table = table.replace_schema_metadata(metadata)
    buffer = io.BytesIO()
    pq.write_table(table, buffer)
    return buffer.getvalue()


def trials_csv(frame: pd.DataFrame) -> str:
    """``frame`` as CSV text (header row, no index; missing values are empty)."""
    return frame.to_csv(index=False)
