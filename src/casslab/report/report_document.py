"""The report as typed records: what :mod:`.build` produces and the renderers draw.

A :class:`Report` is a title, a few facts about the run, and sections; a section holds
paragraphs, tables (already formatted text) and figure specifications. The renderers
(:mod:`.html`, :mod:`.png`, :mod:`.markdown`) only lay these out; every number and word is
decided in :mod:`.build` (and :mod:`.compare` for two runs).
"""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Literal

from pydantic import Field

from casslab.analysis import Verdict
from casslab.record import Record

SCHEMA_VERSION: Literal[1] = 1


class Tone(StrEnum):
    """How a table row is highlighted."""

    GOOD = "good"
    BAD = "bad"
    CHANGED = "changed"
    NEUTRAL = "neutral"
    UNKNOWN = "unknown"


class TableRow(Record):
    """One row; ``links``, when given, holds one target per cell (a path relative to the
    run directory, or "" for a cell that links nowhere)."""

    cells: list[str]
    tone: Tone = Tone.NEUTRAL
    links: list[str] = Field(default_factory=list)

    def link(self, column: int) -> str:
        """The target of cell ``column`` ("" for none)."""
        return self.links[column] if column < len(self.links) else ""


class Table(Record):
    """A formatted table; ``id`` names it in HTML and Markdown anchors."""

    id: str
    title: str
    columns: list[str]
    rows: list[TableRow]
    note: str = ""


class FigureKind(StrEnum):
    LINES = "lines"  # series over time (x = seconds)
    BARS = "bars"  # one bar per category with CI error bars
    CURVES = "curves"  # markers + lines over categories (latency percentiles)
    BOXES = "boxes"  # one box per category of the raw values
    SCATTER = "scatter"  # markers at numeric (x, y), error bars either way (QPS vs recall)


class Series(Record):
    """One trace. ``x`` is numeric for LINES and SCATTER, category labels otherwise."""

    name: str
    x: list[float] | list[str]
    y: list[float | None]
    error_low: list[float | None] | None = None  # distance below y (CI), BARS / CURVES
    error_high: list[float | None] | None = None  # distance above y
    x_error_low: list[float | None] | None = None  # distance left of x (CI), SCATTER
    x_error_high: list[float | None] | None = None  # distance right of x
    color: str = "#1f77b4"
    group: str = ""  # legend group: iterations of one cell share one entry
    show_legend: bool = True
    dash: bool = False


class Marker(Record):
    """A vertical line across a LINES figure at ``x``: where one trial's steady part begins."""

    x: float
    label: str  # on hover: "compaction=LCS #2: steady from 12 s"
    text: str  # drawn at the top of the line: "steady from 12 s"
    color: str = "#555555"


class Band(Record):
    """A shaded stretch of a LINES figure's x axis: a fault's window (``label`` on hover and
    at its top: "kill node 2")."""

    x0: float
    x1: float
    label: str
    color: str = "#d62728"


class FigureSpec(Record):
    """One figure; ``id`` is unique in a report and names the PNG file.

    ``markers`` are vertical lines (LINES figures only), one legend entry for all of them
    named ``marker_legend``.
    """

    id: str
    kind: FigureKind
    title: str
    x_label: str
    y_label: str
    series: list[Series]
    log_y: bool = False
    note: str = ""
    markers: list[Marker] = Field(default_factory=list)
    marker_legend: str = ""
    bands: list[Band] = Field(default_factory=list)  # LINES only: faults' windows


class Section(Record):
    id: str
    title: str
    paragraphs: list[str] = Field(default_factory=list)
    tables: list[Table] = Field(default_factory=list)
    figures: list[FigureSpec] = Field(default_factory=list)
    bullets: list[str] = Field(default_factory=list)


class VerdictRow(Record):
    """One KPI of one cell against the baseline, the numbers behind a headline line."""

    kpi: str
    unit: str
    cell_id: str
    baseline_cell: str
    baseline_mean: float | None
    cell_mean: float | None
    change_pct: float | None
    ratio: float | None
    ratio_low: float | None
    ratio_high: float | None
    p_value: float | None
    verdict: Verdict
    verdict_text: str  # "better", "worse", "not significant", "undetermined", ...
    reason: str
    caution: str = ""  # the flagged trials it rests on (not steady, failed), or ""


class Report(Record):
    """A whole report (one run, or two runs compared)."""

    schema_version: Literal[1] = SCHEMA_VERSION
    title: str
    facts: list[tuple[str, str]]  # (label, value) shown under the title
    verdicts: list[VerdictRow]
    sections: list[Section]
    warnings: list[str]

    def figures(self) -> list[FigureSpec]:
        return [figure for section in self.sections for figure in section.figures]

    def tables(self) -> list[Table]:
        return [table for section in self.sections for table in section.tables]


class ReportPaths(Record):
    """Files :func:`casslab.report.write_report` wrote."""

    report_html: Path
    summary_md: Path
    trials_parquet: Path
    trials_csv: Path
    figures: list[Path]
    problems: list[str] = Field(default_factory=list)  # run files that could not be read
    flame_graphs: list[Path] = Field(default_factory=list)  # each cell's, under flame/
