"""`make test`'s time report (scripts/test_report.py) on literal reports: phase times in
order with their status, the slowest tests across phases, and each failure's line and
message at the end."""

from __future__ import annotations

from pathlib import Path

from script_files import script

JUNIT = """<?xml version="1.0" encoding="utf-8"?>
<testsuites><testsuite name="pytest" tests="3">
<testcase classname="tests.a.test_x" name="test_one" time="12.5" />
<testcase classname="tests.a.test_x" name="test_two" time="0.25" />
<testcase classname="tests.b.test_y" name="test_three[p1]" time="40.0"><failure
 message="assert 27.5 &lt; 25&#10; +  where 27.5 = f()">def test_three():
&gt;       assert window["detected_s"] &lt; 25
E       assert 27.5 &lt; 25

tests/b/test_y.py:42: AssertionError</failure></testcase>
<testcase classname="tests.b.test_y" name="test_four" time="1.0"><error /></testcase>
</testsuite></testsuites>
"""


def test_phases_and_the_slowest_tests(tmp_path: Path) -> None:
    report = script("test_report")
    (tmp_path / "phases.tsv").write_text("lint\t30.5\t0\nno node\t100\t0\nreal nodes\t600.25\t1\n")
    (tmp_path / "real-nodes.xml").write_text(JUNIT)
    phases = report.read_phases(tmp_path / "phases.tsv")
    assert [(p.name, p.seconds, p.status) for p in phases] == [
        ("lint", 30.5, 0),
        ("no node", 100.0, 0),
        ("real nodes", 600.25, 1),
    ]
    tests = report.read_tests("real-nodes", tmp_path / "real-nodes.xml")
    text = report.render(phases, tests, slowest=2)
    lines = text.splitlines()
    assert lines[1].split() == ["lint", "30.5", "s", "ok"]
    assert "FAILED (exit 1)" in lines[3]
    assert "total" in lines[4]
    assert "730.8 s (12.2 min)" in lines[4]
    assert lines[-7].strip() == "40.0 s  [real-nodes] tests.b.test_y::test_three[p1]"
    assert lines[-6].strip() == "12.5 s  [real-nodes] tests.a.test_x::test_one"
    assert lines[-5:] == [
        "2 failed:",
        "  [real-nodes] tests.b.test_y::test_three[p1]",
        "    tests/b/test_y.py:42: assert 27.5 < 25 + where 27.5 = f()",
        "  [real-nodes] tests.b.test_y::test_four",
        "    error",
    ]


def test_a_phase_beside_the_others_is_shown_and_left_out_of_the_total(tmp_path: Path) -> None:
    report = script("test_report")
    (tmp_path / "phases.tsv").write_text(
        "no node\t100\t0\nlint\t400.5\t2\tbeside\nreal nodes\t600\t0\n"
    )
    phases = report.read_phases(tmp_path / "phases.tsv")
    assert [(p.name, p.status, p.beside) for p in phases] == [
        ("no node", 0, False),
        ("lint", 2, True),
        ("real nodes", 0, False),
    ]
    lines = report.render(phases, []).splitlines()
    assert "lint" in lines[2]
    assert "400.5 s  FAILED (exit 2)  (beside the others" in lines[2]
    assert lines[4].split()[:4] == ["total", "700.0", "s", "(11.7"]


def test_no_report_yet_is_an_empty_table(tmp_path: Path) -> None:
    report = script("test_report")
    assert report.read_phases(tmp_path / "phases.tsv") == []
    assert "total" in report.render([], [])


def test_module_times_longest_first_with_their_paths(tmp_path: Path) -> None:
    """The real-node phase's seconds per module, the file the run order is read from;
    a class inside a module counts to the module."""
    report = script("test_report")
    (tmp_path / "tests" / "a").mkdir(parents=True)
    (tmp_path / "tests" / "a" / "test_x.py").write_text("")
    cases = [
        ("tests.a.test_x", 12.5),
        ("tests.a.test_x.TestGroup", 0.25),
        ("tests.b.test_y", 41.0),
    ]
    walls = report.module_walls(cases, tmp_path)
    assert report.module_times(walls) == (
        "41.0\t-\ttests/b/test_y.py\n12.8\t-\ttests/a/test_x.py\n"
    )
    (tmp_path / "real-nodes.xml").write_text(JUNIT)
    assert report.main(["test_report", str(tmp_path)]) == 0
    written = (tmp_path / "module_times.tsv").read_text().splitlines()
    assert written[1:] == ["41.0\t-\ttests/b/test_y.py", "12.8\t-\ttests/a/test_x.py"]


def test_cpu_seconds_per_module_summed_over_workers_and_shown_before_the_failures(
    tmp_path: Path,
) -> None:
    """The ``cpu-<worker>.tsv`` files of tests/cpu_accounting.py: a module counted on two
    workers (or twice on one) adds up; the report lists the modules by CPU, above the
    failures, and module_times.tsv carries the CPU beside the seconds."""
    report = script("test_report")
    (tmp_path / "tests" / "a").mkdir(parents=True)
    (tmp_path / "tests" / "a" / "test_x.py").write_text("")
    (tmp_path / "cpu-gw0.tsv").write_text("tests/b/test_y.py\t30.5\ntests/a/test_x.py\t2.0\n")
    (tmp_path / "cpu-gw1.tsv").write_text("tests/a/test_x.py\t1.5\n")
    assert report.read_cpu(tmp_path) == {"tests/b/test_y.py": 30.5, "tests/a/test_x.py": 3.5}
    (tmp_path / "real-nodes.xml").write_text(JUNIT)
    shown = report.render_cpu(report.read_cpu(tmp_path), {"tests/b/test_y.py": 41.0}, top=1)
    assert shown.splitlines() == [
        "the 1 real-node modules that used the most CPU (of 34 CPU-s; nodes in a cgroup of"
        " their own not counted):",
        "     30.5 CPU-s in   41.0 s  tests/b/test_y.py",
    ]
    text = report.render(
        [], report.read_tests("real-nodes", tmp_path / "real-nodes.xml"), cpu=shown
    )
    assert text.index("30.5 CPU-s") < text.index("2 failed:")
    assert report.main(["test_report", str(tmp_path)]) == 0
    written = (tmp_path / "module_times.tsv").read_text().splitlines()
    assert written[1:] == ["41.0\t30.5\ttests/b/test_y.py", "12.8\t3.5\ttests/a/test_x.py"]
    assert report.render_cpu({}, {}) == ""
