"""cassandra-stress's ``-reporting output-frequency=T header-frequency=T``
(``SettingsReporting.java``): how often a row of figures is printed (default 1 s) and how
often the header is printed again (default: once, at the start).

Here a row's figures are those of its own period, measured by the engine over exactly that
time (percentiles are not averaged from shorter rows): ``output-frequency=`` is the period
the engine reports, as ``-log interval=`` is; given both, they must agree. The header is
printed again before the first row past each ``header-frequency=`` (pure)."""

from __future__ import annotations

from casslab.errors import WorkloadSyntaxError
from casslab.load.stress.dist import parse_duration_s
from casslab.load.stress.model import StressCommandKind, StressLog, StressReporting
from casslab.load.stress.tokens import expect_options

FORM = "-reporting output-frequency=1s header-frequency=10s"


def parse_reporting(kind: StressCommandKind, args: list[str], fields: dict[str, object]) -> None:
    allowed = {
        "output-frequency=": "output-frequency=1s",
        "header-frequency=": "header-frequency=10s",
    }
    found = expect_options("-reporting", args, allowed)
    if not found:
        raise WorkloadSyntaxError(
            f"-reporting: give output-frequency= or header-frequency=: {FORM}"
        )
    values: dict[str, float] = {}
    for key, (token, value) in found.items():
        seconds = parse_duration_s(value, what=f"-reporting {token!r}")
        if seconds <= 0:
            raise WorkloadSyntaxError(f"-reporting {token!r}: give a time above zero, e.g. {key}5s")
        values[key.rstrip("=").replace("-", "_") + "_s"] = seconds
    fields["reporting"] = StressReporting.model_validate(values)


def apply_reporting(fields: dict[str, object]) -> None:
    """``output-frequency=`` becomes the reporting period (``-log interval=``); a different
    ``-log interval=`` beside it is refused, naming both."""
    reporting = fields.get("reporting")
    if not isinstance(reporting, StressReporting) or reporting.output_frequency_s is None:
        return
    log = fields.get("log")
    log = log if isinstance(log, StressLog) else StressLog()
    interval_given = "interval_s" in log.model_fields_set
    if interval_given and log.interval_s != reporting.output_frequency_s:
        raise WorkloadSyntaxError(
            f"-log interval={log.interval_s:g}s and -reporting output-frequency="
            f"{reporting.output_frequency_s:g}s: each row here covers its own period, so both "
            "set how often a row is printed; give one of them"
        )
    fields["log"] = log.model_copy(update={"interval_s": reporting.output_frequency_s})


def header_due(every_s: float | None, since_header_s: float) -> bool:
    """Whether the header is printed again before the next row: ``since_header_s`` seconds
    of rows (their nominal period each, not as measured) were printed since the last one,
    and ``header-frequency=`` asks for one every ``every_s`` (None: only at the start)."""
    return every_s is not None and since_header_s >= every_s - 1e-9
