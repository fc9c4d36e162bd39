"""report.html in a real browser: headless Chromium (Debian's ``chromium`` package).

The page is loaded from a file with name resolution disabled; the test fails on any
console message (page errors and ``console.*`` calls alike: the report logs nothing), on
any request the page makes to a non-file URL (Chromium's NetLog), and on any figure div
without rendered SVG. A screenshot is kept next to the run (``report.png``) for a look.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import matplotlib.image
import numpy as np
import pytest

from browser_check import figure_divs, needs_chromium, open_page, screenshot
from casslab.report import write_report
from casslab.store.layout import RunLayout
from flame_literals import STCS, add_profiles

pytestmark = pytest.mark.browser

RunFactory = Callable[..., Path]


@needs_chromium
def test_report_renders_in_chromium_without_errors(written_run: Path, tmp_path: Path) -> None:
    html = written_run / "report.html"
    expected = re.findall(r'<div id="fig-([^"]+)" class="plotly-graph-div"', html.read_text())
    assert len(expected) >= 10

    load = open_page(html, tmp_path)

    assert load.console == [], "page errors or console output:\n" + "\n".join(load.console)
    assert load.external == [], f"the page requested network resources: {load.external}"
    divs = figure_divs(load.dom)
    assert sorted(divs) == sorted(expected)
    blank = [fid for fid, dom in divs.items() if 'class="main-svg"' not in dom]
    assert blank == [], f"figures without rendered SVG: {blank}"
    no_data = [fid for fid, dom in divs.items() if not re.search(r'class="(trace|point|box)', dom)]
    assert no_data == [], f"figures without drawn traces: {no_data}"

    shot = written_run / "report.png"
    screenshot(html, shot, tmp_path)
    pixels = matplotlib.image.imread(shot)
    assert pixels.shape[0] == 3000
    assert float(np.std(pixels[..., :3])) > 0.05
    print(f"screenshot: {shot}")


@needs_chromium
def test_the_browser_check_catches_a_broken_page(tmp_path: Path) -> None:
    page = tmp_path / "broken.html"
    page.write_text(
        '<html><body><div id="fig-x" class="plotly-graph-div"></div>'
        "<script>notDefined();</script>"
        '<img src="https://example.invalid/x.png"></body></html>',
        encoding="utf-8",
    )

    load = open_page(page, tmp_path)

    assert any("notDefined" in line for line in load.console)
    assert load.external == ["https://example.invalid/x.png"]
    assert 'class="main-svg"' not in figure_divs(load.dom)["x"]


@needs_chromium
def test_a_report_with_profiles_and_its_flame_graphs_render_without_requests(
    make_run: RunFactory, tmp_path: Path
) -> None:
    """The Profiles section and every flame graph it links (the cells' merged and
    differential SVGs, each trial's) load in Chromium with no error and no request."""
    run = add_profiles(make_run())
    paths = write_report(run)
    assert paths.flame_graphs
    load = open_page(paths.report_html, tmp_path / "report")
    assert load.console == [], "page errors or console output:\n" + "\n".join(load.console)
    assert load.external == [], f"the page requested network resources: {load.external}"
    assert '<section id="profiles">' in load.dom
    start = load.dom.index('<section id="profiles">')
    links = re.findall(r'<a href="([^"]+\.svg)"', load.dom[start:])
    assert len(links) >= len(paths.flame_graphs)
    graphs = [*paths.flame_graphs, RunLayout(root=run).profile_dir(STCS, 1) / "node1-cpu.svg"]
    for index, graph in enumerate(graphs):
        shown = open_page(graph, tmp_path / f"graph-{index}")
        assert shown.console == [], f"{graph}: " + "\n".join(shown.console)
        assert shown.external == [], f"{graph} requested {shown.external}"
        assert "<svg" in shown.dom
        assert "<rect" in shown.dom  # its frames drawn
