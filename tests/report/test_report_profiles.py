"""The report's profiles: each profiled trial's flame graphs linked, each cell's merged graph
and its differential graph against the baseline drawn, and the frames that moved listed; on
a synthetic run directory whose trials hold literal collapsed stacks (no Cassandra)."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Callable, Mapping
from pathlib import Path
from urllib.parse import quote, unquote

from casslab.report import build_report, read_run, render_markdown, write_report
from casslab.report.profiles import cell_graphs, graph_path, profile_section
from casslab.store.layout import RunLayout
from flame_literals import COMPACT, LCS, STACKS, STCS, WRITE, add_profiles, write_profile

RunFactory = Callable[..., Path]


def _fills(svg: str) -> Mapping[str, str]:
    """Each frame's fill colour in a flame graph, by the frame named in its tooltip."""
    out: dict[str, str] = {}
    for group in ET.fromstring(svg).iter("{http://www.w3.org/2000/svg}g"):
        title = group.find("{http://www.w3.org/2000/svg}title")
        rect = group.find("{http://www.w3.org/2000/svg}rect")
        assert title is not None
        assert rect is not None
        assert title.text is not None
        out[title.text.split(":")[0]] = rect.attrib["fill"]
    return out


def test_the_run_data_lists_each_trials_profiles(make_run: RunFactory) -> None:
    run = read_run(add_profiles(make_run()))
    stcs_1 = next(t for t in run.trials if t.result.trial_id == f"{STCS}/1")
    assert [(p.node, p.kind, p.svg_path is not None) for p in stcs_1.profiles] == [
        (1, "alloc", True),
        (1, "cpu", True),
        (2, "cpu", True),
    ]
    assert all(not t.profiles for t in read_run(make_run("bare")).trials)


def test_the_cells_graphs_merge_finished_trials_and_colour_the_move(
    make_run: RunFactory,
) -> None:
    from casslab.report.profile_files import read_cell_stacks

    stacks, problems = read_cell_stacks(read_run(add_profiles(make_run())))
    assert problems == []
    # 3 trials x 2 nodes; the failed LCS #4 (all compaction) is left out
    assert stacks[(LCS, "cpu")] == {WRITE: 300, COMPACT: 300}
    assert stacks[(STCS, "cpu")] == {WRITE: 480, COMPACT: 120}
    graphs = cell_graphs(stacks, STCS)
    assert set(graphs) == {
        graph_path(LCS, "cpu"),
        graph_path(LCS, "cpu", diff=True),
        graph_path(STCS, "alloc"),
        graph_path(STCS, "cpu"),
    }
    fills = _fills(graphs[graph_path(LCS, "cpu", diff=True)])
    # compaction 20% -> 50% of the samples: the largest growth, full red; writes full blue
    assert fills["CompactionTask.run"] == "rgb(255,0,0)"
    assert fills["Memtable.put"] == "rgb(0,0,255)"
    assert fills["Thread.run"] == "rgb(255,255,255)"  # 100% in both


def test_the_profiles_section_links_trials_and_lists_moved_frames(make_run: RunFactory) -> None:
    from casslab.report.profile_files import read_cell_stacks

    run = read_run(add_profiles(make_run()))
    stacks, _ = read_cell_stacks(run)
    section = profile_section(run, [STCS, LCS], STCS, stacks)
    assert section is not None
    cells, changes, trials = section.tables
    assert [r.cells[:2] + r.links[3:] for r in cells.rows] == [
        [STCS, "alloc", graph_path(STCS, "alloc"), ""],
        [STCS, "cpu", graph_path(STCS, "cpu"), ""],
        [LCS, "cpu", graph_path(LCS, "cpu"), graph_path(LCS, "cpu", diff=True)],
    ]
    assert [r.cells[2:] for r in changes.rows] == [
        ["CompactionTask.run", "20.0%", "50.0%", "+30.0"],
        ["Memtable.put", "80.0%", "50.0%", "-30.0"],
        ["Mutation.apply", "80.0%", "50.0%", "-30.0"],
        ["Stage.run", "80.0%", "50.0%", "-30.0"],
    ]
    assert trials.columns == ["trial", "node", "alloc", "cpu"]
    stcs_1 = [r for r in trials.rows if r.cells[0] == f"{STCS}/1"]
    assert [r.cells for r in stcs_1] == [
        [f"{STCS}/1", "1", "flame graph", "flame graph"],
        [f"{STCS}/1", "2", "-", "flame graph"],
    ]
    assert stcs_1[1].links[3] == f"trials/{STCS}/1/profile/node2-cpu.svg"
    # the failed trial's own graph is still linked
    assert any(r.cells[0] == f"{LCS}/4" for r in trials.rows)
    assert profile_section(read_run(make_run("bare")), [STCS, LCS], STCS, {}) is None


def test_without_a_baseline_profile_there_is_no_differential_graph(make_run: RunFactory) -> None:
    run = make_run()
    write_profile(run, LCS, 1, 1, "cpu", STACKS[LCS])
    data = read_run(run)
    stacks = {(LCS, "cpu"): STACKS[LCS]}
    assert sorted(cell_graphs(stacks, STCS)) == [graph_path(LCS, "cpu")]
    section = profile_section(data, [STCS, LCS], STCS, stacks)
    assert section is not None
    assert [t.id for t in section.tables] == ["profiles-cells", "profiles-trials"]
    assert "no differential graph" in section.paragraphs[-1]


def test_the_written_report_links_every_graph_it_draws(make_run: RunFactory) -> None:
    run = add_profiles(make_run())
    (RunLayout(root=run).profile_dir(LCS, 3) / "node2-cpu.collapsed").write_text("cut\n")
    paths = write_report(run)
    html = paths.report_html.read_text(encoding="utf-8")
    assert {p.relative_to(run).as_posix() for p in paths.flame_graphs} == {
        graph_path(LCS, "cpu"),
        graph_path(LCS, "cpu", diff=True),
        graph_path(STCS, "alloc"),
        graph_path(STCS, "cpu"),
    }
    start = html.index('<section id="profiles">')
    section = html[start : html.index("</section>", start)]
    targets = set(re.findall(r'<a href="([^"]+)"', section))
    for graph in paths.flame_graphs:
        assert quote(graph.relative_to(run).as_posix()) in targets
        assert ET.parse(graph).getroot().tag.endswith("svg")
    assert quote(f"trials/{STCS}/1/profile/node1-alloc.svg") in targets
    for target in targets:  # every link leads to a file of the run directory
        assert (run / unquote(target)).is_file(), target
    assert html.index('id="profiles"') < html.index('id="cells"')  # next to the verdicts
    assert "node2-cpu.collapsed cannot be read" in html  # a warning names the cut profile
    stacks = {(LCS, "cpu"): STACKS[LCS]}
    markdown = render_markdown(build_report(read_run(run), profiles=stacks), full=True)
    assert f"[merged]({quote(graph_path(LCS, 'cpu'))})" in markdown
