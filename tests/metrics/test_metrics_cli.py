"""The metrics command group (what needs no node)."""

from __future__ import annotations

import pytest
import typer
from rich.console import Console
from typer.testing import CliRunner

from casslab.cli import metrics as metrics_cli
from casslab.cli.metrics import parse_duration_s, register
from casslab.errors import ConfigError
from casslab.metrics.catalogue import CATALOGUE


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("60s", 60.0),
        ("2m", 120.0),
        ("500ms", 0.5),
        ("1h", 3600.0),
        ("1.5", 1.5),
        (" 3 s ", 3.0),
        ("1d", 86400.0),
    ],
)
def test_parse_duration(text: str, seconds: float) -> None:
    assert parse_duration_s(text, "--duration") == pytest.approx(seconds)


@pytest.mark.parametrize("text", ["", "0s", "-1s", "ten", "5w"])
def test_bad_duration_names_the_option(text: str) -> None:
    with pytest.raises(ConfigError, match="--interval"):
        parse_duration_s(text, "--interval")


def _app() -> typer.Typer:
    app = typer.Typer()

    @app.command()
    def version() -> None:  # a second command keeps "metrics" a sub-group
        """Version."""

    register(app)
    return app


def test_list_shows_every_metric(monkeypatch: pytest.MonkeyPatch) -> None:
    # the command's console takes its width when it is made (COLUMNS then, or 80), not
    # when it prints: a wide one, so that no name wraps in its cell
    monkeypatch.setattr(metrics_cli, "console", Console(width=250))
    result = CliRunner().invoke(_app(), ["metrics", "list"])
    assert result.exit_code == 0, result.output
    for m in CATALOGUE:
        assert m.name in result.output


def test_record_refuses_a_bad_duration() -> None:
    result = CliRunner().invoke(
        _app(), ["metrics", "record", "-d", "soon", "-o", "x.parquet", "-c", "127.0.0.1"]
    )
    assert result.exit_code != 0
    assert isinstance(result.exception, ConfigError)


def test_the_piped_watch_form_is_a_tab_separated_line_per_node() -> None:
    header = metrics_cli.plain_header().split("\t")
    assert header[:3] == ["time", "node", "host cpu %"]
    assert len(header) == 2 + len(metrics_cli.WATCH_COLUMNS)
    values = {("n1", "process.rss_bytes"): 512 * 2**20, ("n1", "cassandra.gc_pause_ms"): 12.4}
    rows = metrics_cli.plain_rows(values, ["n1", "n2"], 0.0, {"n2 jmx": "refused"})
    n1, n2, gaps = rows
    cells = n1.split("\t")
    assert cells[:2] == ["00:00:00", "n1"]
    assert cells[header.index("jvm rss MiB")] == "512"
    assert cells[header.index("gc ms")] == "12"
    assert cells[header.index("reads/s")] == "-"  # not sampled
    assert n2.split("\t")[2:] == ["-"] * len(metrics_cli.WATCH_COLUMNS)
    assert gaps == "# gaps: n2 jmx: refused"
