"""The studies gallery (``docs/studies/``): one page per study and one table across them (pure).

A study's page says what its run found for each claim of the study it repeats (the report's
Claims table, :mod:`.claims`), what a reader should conclude from the verdicts, what the
full-size design would change, the key figures (one bar chart per KPI a claim tests), and how
the run was made: the exact command, the versions and the machine. The index
(``docs/studies/README.md``) lists every claim of every study with its verdict and a link to
the study's page. :mod:`.gallery_files` reads the run directories and writes the files.
"""

from __future__ import annotations

from collections.abc import Sequence

from casslab.analysis import AnalysisOptions
from casslab.analysis.claim_records import Claim
from casslab.analysis.claim_verdicts import ClaimResult, ClaimVerdict, judge_claims
from casslab.analysis.run_frames import analysed_trials
from casslab.record import Record
from casslab.report.claims import claim_estimate, claims_table, recorded_claims, verdict_text
from casslab.report.markdown import table_markdown
from casslab.report.software_facts import software_facts
from casslab.store.run_data import RunData


class StudyEntry(Record):
    """One study's run, as the gallery shows it."""

    study: str  # the experiment's name: its folder under docs/studies/
    run_id: str
    description: str
    command: str  # the exact command that made the run
    full_size: str | None  # the full-size experiment file, when the study is scaled
    facts: list[tuple[str, str]]  # versions and machine
    trials: str  # "18 finished of 18 planned"
    results: list[ClaimResult]
    figures: list[str]  # PNG files in the study's folder, the key figures
    summary: str = "summary.md"  # the run's summary, in the study's folder


def key_figures(results: Sequence[ClaimResult]) -> list[str]:
    """The bar figure of each KPI a claim tests, in the claims' order: ``bars-<kpi>.png``."""
    names = [r.claim.kpi for r in results if r.claim.kpi is not None and r.pairs]
    return [f"bars-{kpi.replace('.', '-')}.png" for kpi in dict.fromkeys(names)]


def study_entry(
    run: RunData,
    *,
    command: str,
    full_size: str | None,
    claims: Sequence[Claim] | None = None,
    options: AnalysisOptions = AnalysisOptions(),
) -> StudyEntry:
    """The gallery's view of one run directory (read by :func:`casslab.report.read_run`):
    its manifest's claims, or ``claims`` (the experiment file's) when given."""
    manifest = run.manifest
    if claims is None:
        claims, _ = recorded_claims(manifest.experiment)
    trials = analysed_trials(run)
    results = judge_claims(claims, trials, options)
    facts = software_facts(manifest)
    ended = manifest.ended_at.isoformat(timespec="seconds") if manifest.ended_at else "not ended"
    facts.append(("run", f"{manifest.started_at.isoformat(timespec='seconds')} to {ended}"))
    planned = manifest.trials_planned or len(run.trials)
    description = manifest.experiment.get("description")
    return StudyEntry(
        study=manifest.experiment_name,
        run_id=manifest.run_id,
        description=description if isinstance(description, str) else "",
        command=command,
        full_size=full_size,
        facts=facts,
        trials=f"{len(trials)} finished of {planned} planned",
        results=results,
        figures=key_figures(results),
    )


def _counts(results: Sequence[ClaimResult]) -> dict[ClaimVerdict, int]:
    return {v: sum(r.verdict is v for r in results) for v in ClaimVerdict}


def conclusion(entry: StudyEntry) -> str:
    """What a reader should conclude, from the verdicts (one paragraph)."""
    counts = _counts(entry.results)
    tested = len(entry.results) - counts[ClaimVerdict.NOT_TESTABLE]
    parts = [
        f"Of the {len(entry.results)} claims of the study, casslab tested {tested} on this "
        f"machine. Holds here: {counts[ClaimVerdict.HOLDS]}; contradicted here: "
        f"{counts[ClaimVerdict.CONTRADICTED]}; not significant with this run's iterations: "
        f"{counts[ClaimVerdict.NOT_SIGNIFICANT]}; undetermined: "
        f"{counts[ClaimVerdict.UNDETERMINED]}."
    ]
    if counts[ClaimVerdict.CONTRADICTED]:
        parts.append(
            "A contradicted claim is a finding of the study this machine does not reproduce "
            "with a significant difference the other way (or a smaller one than claimed): "
            "read its row before relying on it."
        )
    if counts[ClaimVerdict.NOT_SIGNIFICANT]:
        parts.append(
            "A claim that is not significant here is neither confirmed nor refuted: its row "
            "gives the iterations per cell that would tell."
        )
    parts.append(
        "The numbers are this machine's (2 cores shared by nodes and load), so read the "
        "directions and the intervals, not the absolute rates."
    )
    return " ".join(parts)


def hardware_note(entry: StudyEntry) -> str:
    """What the full-size design would change (one paragraph)."""
    if entry.full_size is None:
        return (
            "This study ran at its full size; on real hardware (the study's own machines) "
            "the absolute numbers change, and the verdicts are the ones to compare."
        )
    return (
        f"This is the scaled design. The full-size design, `{entry.full_size}`, runs the "
        "study's own load levels, durations and iterations on hardware like the study's; "
        "it narrows every interval (more and longer trials), so claims that are not "
        "significant here may be decided there, and latencies and rates move to the "
        "hardware's scale. `casslab plan` on it gives its size and run time."
    )


class Reading(Record):
    """What a reader should take from one run of a study, written by hand after reading its
    page: it is shown on the page of that run only (``run_id``)."""

    run_id: str
    text: str


def reading_paragraph(entry: StudyEntry, reading: Reading | None) -> list[str]:
    """The hand-written reading of the run the page shows, or a line saying it is of
    another run (the page's table is then the one to read)."""
    if reading is None:
        return []
    if reading.run_id == entry.run_id:
        return [reading.text, ""]
    return [
        f"(The reading written for this study is of run {reading.run_id}; this page shows "
        f"run {entry.run_id}: read its table below.)",
        "",
    ]


def study_page(entry: StudyEntry, reading: Reading | None = None) -> str:
    """``docs/studies/<study>/README.md``."""
    lines = [f"# {entry.study}", ""]
    if entry.description:
        lines += [entry.description, ""]
    lines += ["## What to conclude", "", *reading_paragraph(entry, reading)]
    lines += [conclusion(entry), "", hardware_note(entry), ""]
    lines += [table_markdown(claims_table(entry.results)), ""]
    if entry.figures:
        lines += ["## Key figures", ""]
        lines += [f"![{name.rsplit('/', 1)[-1][:-4]}]({name})" for name in entry.figures]
        lines.append("")
    lines += [
        "## How this run was made",
        "",
        f"- **command**: `{entry.command}`",
        f"- **trials**: {entry.trials}",
        *(f"- **{label}**: {value}" for label, value in entry.facts),
        f"- **run directory**: {entry.run_id}; its report: [{entry.summary}]({entry.summary})",
        "",
    ]
    return "\n".join(lines)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def gallery_index(entries: Sequence[StudyEntry]) -> str:
    """``docs/studies/README.md``: every claim of every study, with its verdict."""
    lines = [
        "# The studies, judged",
        "",
        "Each study casslab ships, run once on this machine (`make studies`), against the "
        "claims of the study it repeats. A verdict is *holds here*, *contradicted here*, *not "
        "significant here* (with the iterations that would tell) or *not testable here* "
        "(with the reason); the estimate is casslab's change a/b - 1 with its 95% CI (for a "
        "share of counts whose trials did not vary, the difference in points, on the counts). "
        "Each study's page has its figures, its conclusion and how it was run.",
        "",
        "| study | claim | study's number | casslab's estimate (95% CI) | verdict |",
        "|---|---|---|---|---|",
    ]
    for entry in entries:
        link = f"[{entry.study}]({entry.study}/README.md)"
        for result in entry.results:
            seed = result.claim.seed_value.shown() if result.claim.seed_value else "-"
            cells = [link, result.claim.says, seed, claim_estimate(result), verdict_text(result)]
            lines.append("| " + " | ".join(_cell(c) for c in cells) + " |")
    return "\n".join(lines) + "\n"
