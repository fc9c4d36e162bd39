"""Report -> Markdown (``summary.md``): facts, verdicts, cell table, warnings, method (pure).

Figures are not drawn here; when PNG files exist, :func:`render_markdown` links them.
"""

from __future__ import annotations

from collections.abc import Mapping
from urllib.parse import quote

from casslab.report import text
from casslab.report.report_document import Report, Section, Table

SUMMARY_TABLES = ("claims", "verdicts", "cells", "compare", "lww", "discovered")


def _cell(value: str) -> str:
    return value.replace("|", "\\|").replace("\n", " ")


def table_markdown(table: Table) -> str:
    lines = [f"### {table.title}", ""]
    lines.append("| " + " | ".join(_cell(c) for c in table.columns) + " |")
    lines.append("|" + "|".join("---" for _ in table.columns) + "|")
    for row in table.rows:
        cells = [
            f"[{_cell(c)}]({quote(row.link(i))})" if row.link(i) else _cell(c)
            for i, c in enumerate(row.cells)
        ]
        lines.append("| " + " | ".join(cells) + " |")
    if table.note:
        lines += ["", f"_{table.note}_"]
    return "\n".join(lines)


def _shown(section: Section, full: bool) -> list[Table]:
    """The section's tables the summary shows: all of them when ``full``."""
    return [t for t in section.tables if full or t.id.startswith(SUMMARY_TABLES)]


def _section(section: Section, figures: Mapping[str, str], full: bool) -> list[str]:
    lines = [f"## {section.title}", ""]
    lines += [f"{p}\n" for p in section.paragraphs]
    if section.bullets:
        lines += [f"- {b}" for b in section.bullets]
        lines.append("")
    for table in _shown(section, full):
        lines += [table_markdown(table), ""]
    for figure in section.figures:
        if figure.id in figures:
            lines += [f"![{figure.title}]({figures[figure.id]})", ""]
    return lines


def render_markdown(
    report: Report, figures: Mapping[str, str] | None = None, *, full: bool = False
) -> str:
    """The Markdown summary. ``figures`` maps figure ids to relative PNG paths to link;
    ``full`` includes every table (otherwise the verdict and overview tables only)."""
    links = dict(figures or {})
    lines = [f"# {report.title}", ""]
    lines += [f"- **{label}**: {value}" for label, value in report.facts]
    lines.append("")
    opening = [s for s in report.sections if s.id == "claims"]  # the study's claims first
    for section in opening:
        lines += _section(section, links, full)
    if report.verdicts:
        lines += ["## Headline", ""]
        lines += [f"- {text.verdict_sentence(row)}" for row in report.verdicts]
        lines.append("")
    for section in report.sections:
        if section in opening or (section.id == "trials" and not full):
            continue
        if not (_shown(section, full) or section.paragraphs or section.bullets) and not any(
            f.id in links for f in section.figures
        ):
            continue
        lines += _section(section, links, full)
    return "\n".join(lines).rstrip() + "\n"
