"""What ``casslab capacity find`` prints of an open-loop search: each run as it ends, the
curve of rate against p99 (and recall), and the answer in words. Text only: the command
(:mod:`casslab.cli.capacity_find`) decides when."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from casslab.capacity.find import FindResult, FindStatus, Point, Verdict


class View:
    """Where text goes: standard output, or standard error when --json owns standard output."""

    def __init__(self, json_out: bool) -> None:
        self.json_out = json_out
        self.console = Console(stderr=json_out, highlight=False)

    def say(self, text: str) -> None:
        self.console.print(text, soft_wrap=True)


def ms(value: float | None) -> str:
    return "-" if value is None else f"{value:,.2f}"


def point_line(point: Point, slo_ms: float) -> str:
    probe = point.probe
    verdict = "pass" if point.verdict is Verdict.PASS else f"FAIL ({point.reason})"
    line = (
        f"run {point.run:>2}: {probe.rate_asked_per_s:>10,.0f}/s asked, "
        f"{probe.rate_achieved_per_s:>10,.0f}/s done, p50 {ms(probe.p50_ms)} ms, "
        f"p99 {ms(probe.p99_ms)} ms (SLO {slo_ms:g}), p99.9 {ms(probe.p999_ms)} ms, "
        f"{probe.errors:,} errors"
        + (f", recall {probe.recall:.3f}" if probe.recall is not None else "")
        + f": {verdict}"
    )
    if probe.truncated:
        line += "; stopped at its deadline"
    if probe.first_error:
        line += f"; first error: {probe.first_error[:120]}"
    return line


def curve_table(result: FindResult) -> Table:
    """The runs by rate; with a recall column when a run counted recall."""
    table = Table(title="rate against p99 (the open-loop curve)")
    recall = any(p.probe.recall is not None for p in result.points)
    names = ("rate asked/s", "done/s", "p50 ms", "p99 ms", "p99.9 ms", "errors")
    for name in (*names, *(("recall",) if recall else ()), "verdict", "run"):
        table.add_column(name, justify="right")
    ordered = sorted(result.points, key=lambda p: (p.probe.rate_asked_per_s, p.run))
    for point in ordered:
        probe = point.probe
        mark = "pass" if point.verdict is Verdict.PASS else f"fail: {point.reason}"
        if probe.rate_asked_per_s == result.max_rate:
            mark += " (max)"
        table.add_row(
            f"{probe.rate_asked_per_s:,.0f}",
            f"{probe.rate_achieved_per_s:,.0f}",
            ms(probe.p50_ms),
            ms(probe.p99_ms),
            ms(probe.p999_ms),
            f"{probe.errors:,}",
            *(("-" if probe.recall is None else f"{probe.recall:.3f}",) if recall else ()),
            mark,
            str(point.run),
        )
    return table


def elapsed(seconds: float) -> str:
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes} min {rest} s" if minutes else f"{rest} s"


def answer_lines(result: FindResult) -> list[str]:
    s = result.settings
    slo = f"p99 <= {s.p99_slo_ms:g} ms" + (
        f" and <= {s.error_share:.3%} errors" if s.error_share else " and no errors"
    )
    if s.min_recall is not None:
        slo += f" and recall@k >= {s.min_recall:g}"
    lines: list[str] = []
    if result.max_rate is None:
        lowest = min((p.probe.rate_asked_per_s for p in result.points), default=None)
        lines.append(
            f"no rate meets {slo}: even {lowest:,.0f}/s failed; lower --min-rate or check "
            "the cluster"
            if lowest is not None
            else f"no run finished; nothing is known of {slo}"
        )
    else:
        lines.append(
            f"max rate: {result.max_rate:,.0f} ops/s with {slo} (p99 {ms(result.p99_ms_at_max)} "
            f"ms, the worst of {result.runs_at_max} run(s), all passed)"
        )
        if result.bracket_high_per_s is not None:
            width = result.bracket_high_per_s / result.max_rate - 1
            lines.append(
                f"bracket: the SLO is crossed between {result.max_rate:,.0f} and "
                f"{result.bracket_high_per_s:,.0f} ops/s (+{width:.1%}), which failed"
            )
        if result.pass_probability_low is not None:
            lines.append(
                f"confidence: {result.runs_at_max} of {result.runs_at_max} runs passed at the "
                f"max: a run there passes with probability >= {result.pass_probability_low:.2f} "
                "(one-sided 95%, Clopper-Pearson)"
            )
    notes = {
        FindStatus.ABOVE_MAX: "every rate up to --max-rate passed: the capacity is higher",
        FindStatus.RUN_LIMIT: "the search used all --max-runs runs before it settled",
        FindStatus.INTERRUPTED: "interrupted: the answer so far, not settled",
    }
    if result.status in notes:
        lines.append(notes[result.status])
    if result.passes_above_fail:
        lines.append(
            f"{result.passes_above_fail} run(s) passed above the lowest failing rate (noise); "
            "the answer is the conservative one"
        )
    return lines
