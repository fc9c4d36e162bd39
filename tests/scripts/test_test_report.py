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
    assert report.module_times(cases, tmp_path) == (
        "41.0\ttests/b/test_y.py\n12.8\ttests/a/test_x.py\n"
    )
    (tmp_path / "real-nodes.xml").write_text(JUNIT)
    assert report.main(["test_report", str(tmp_path)]) == 0
    written = (tmp_path / "module_times.tsv").read_text().splitlines()
    assert written[1:] == ["41.0\ttests/b/test_y.py", "12.8\ttests/a/test_x.py"]
