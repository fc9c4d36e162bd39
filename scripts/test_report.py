"""The time of `make test`: each phase's wall time and the 30 slowest tests across all
phases (setup, call and teardown together, as pytest's JUnit report times them), read
from the reports `make test` writes into .test-reports/; then each failed test with the
line that failed and its message, last, so that the tail of a long log says why.

    python scripts/test_report.py [.test-reports]

It also writes ``module_times.tsv`` there: the seconds of each test module of the
real-node phase, longest first, the order the next runs take when it is copied to
``tests/module_times.tsv`` (tests/module_order.py says why).
"""

from __future__ import annotations

import re
import sys
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SLOWEST = 30
MOST_CPU = 15
MESSAGE_CHARS = 600
"""A failure's message is cut here: pytest's includes the repr of every operand."""
_LOCATION = re.compile(r"^(\S+\.py:\d+): ", re.MULTILINE)


@dataclass(frozen=True)
class TestTime:
    phase: str
    name: str
    seconds: float
    failure: str | None = None
    """Where and why it failed or errored (``file.py:LINE: message``), if it did."""


@dataclass(frozen=True)
class PhaseTime:
    name: str
    seconds: float
    status: int
    beside: bool = False
    """It ran beside the other phases at the lowest CPU priority (lint, the engine tests'
    build): its seconds are not on the way to the end and not in the total."""


def read_phases(path: Path) -> list[PhaseTime]:
    """``phases.tsv``: one line per phase, ``NAME<TAB>SECONDS<TAB>EXIT STATUS``, and
    ``<TAB>beside`` after it for a phase that ran beside the others."""
    phases: list[PhaseTime] = []
    if not path.is_file():
        return phases
    for line in path.read_text().splitlines():
        parts = line.split("\t")
        if len(parts) in (3, 4):
            beside = parts[3:] == ["beside"]
            phases.append(PhaseTime(parts[0], float(parts[1]), int(parts[2]), beside))
    return phases


def read_tests(phase: str, xml: Path) -> list[TestTime]:
    """Every test case of a JUnit XML report with its time."""
    times: list[TestTime] = []
    for case in ET.parse(xml).getroot().iter("testcase"):
        name = f"{case.get('classname', '')}::{case.get('name', '')}"
        times.append(TestTime(phase, name, float(case.get("time") or 0.0), _failure(case)))
    return times


def _failure(case: ET.Element) -> str | None:
    """The failure's (or error's) last traceback location and its message, cut short."""
    for kind in ("failure", "error"):
        element = case.find(kind)
        if element is None:
            continue
        message = " ".join((element.get("message") or kind).split())
        if len(message) > MESSAGE_CHARS:
            message = message[:MESSAGE_CHARS] + " ..."
        locations = _LOCATION.findall(element.text or "")
        return f"{locations[-1]}: {message}" if locations else message
    return None


def module_path(classname: str, root: Path) -> str:
    """A JUnit classname (``tests.cli.test_x`` or ``tests.cli.test_x.TestY``) as the test
    module's path under ``root`` (``tests/cli/test_x.py``); the classname's own dotted path
    when no such file exists."""
    parts = classname.split(".")
    for end in range(len(parts), 0, -1):
        candidate = "/".join(parts[:end]) + ".py"
        if (root / candidate).is_file():
            return candidate
    return "/".join(parts) + ".py"


def read_cpu(folder: Path) -> dict[str, float]:
    """The CPU-seconds of each module, summed over the ``cpu-<worker>.tsv`` files that
    tests/cpu_accounting.py writes (``MODULE<TAB>CPU SECONDS`` lines)."""
    totals: dict[str, float] = {}
    for path in sorted(folder.glob("cpu-*.tsv")):
        for line in path.read_text().splitlines():
            module, _, seconds = line.rpartition("\t")
            if module:
                totals[module] = totals.get(module, 0.0) + float(seconds)
    return totals


def module_walls(cases: list[tuple[str, float]], root: Path) -> dict[str, float]:
    """The seconds of each module (its path) of ``(classname, seconds)`` test cases."""
    totals: dict[str, float] = {}
    for classname, seconds in cases:
        path = module_path(classname, root)
        totals[path] = totals.get(path, 0.0) + seconds
    return totals


def module_times(walls: dict[str, float], cpu: dict[str, float] | None = None) -> str:
    """``SECONDS<TAB>CPU SECONDS<TAB>MODULE`` per module, longest first (``-`` where no CPU
    was counted): the format of tests/module_times.tsv."""
    used = cpu or {}
    lines = []
    for path, seconds in sorted(walls.items(), key=lambda item: -item[1]):
        counted = f"{used[path]:.1f}" if path in used else "-"
        lines.append(f"{seconds:.1f}\t{counted}\t{path}\n")
    return "".join(lines)


def render_cpu(cpu: dict[str, float], walls: dict[str, float], top: int = MOST_CPU) -> str:
    """The modules of the real-node phase that used the most CPU, their processes included."""
    if not cpu:
        return ""
    ranked = sorted(cpu.items(), key=lambda item: -item[1])[:top]
    lines = [
        f"the {len(ranked)} real-node modules that used the most CPU (of {sum(cpu.values()):.0f}"
        " CPU-s; nodes in a cgroup of their own not counted):"
    ]
    for module, seconds in ranked:
        wall = walls.get(module)
        took = f" in {wall:6.1f} s" if wall is not None else ""
        lines.append(f"  {seconds:7.1f} CPU-s{took}  {module}")
    return "\n".join(lines)


def render(
    phases: list[PhaseTime], tests: list[TestTime], slowest: int = SLOWEST, cpu: str = ""
) -> str:
    """The phases, the slowest tests, ``cpu`` (:func:`render_cpu`), then the failures."""
    lines = ["make test, phase by phase:"]
    for phase in phases:
        status = "ok" if phase.status == 0 else f"FAILED (exit {phase.status})"
        where = "  (beside the others, nice 19: not in the total)" if phase.beside else ""
        lines.append(f"  {phase.name:28s} {phase.seconds:8.1f} s  {status}{where}")
    total = sum(p.seconds for p in phases if not p.beside)
    lines.append(f"  {'total':28s} {total:8.1f} s ({total / 60:.1f} min)")
    ranked = sorted(tests, key=lambda t: t.seconds, reverse=True)[:slowest]
    if ranked:
        lines.append(f"the {len(ranked)} slowest tests (setup + call + teardown):")
        lines += [f"  {t.seconds:7.1f} s  [{t.phase}] {t.name}" for t in ranked]
    if cpu:
        lines.append(cpu)
    failed = [t for t in tests if t.failure is not None]
    if failed:
        lines.append(f"{len(failed)} failed:")
        for test in failed:
            lines += [f"  [{test.phase}] {test.name}", f"    {test.failure}"]
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    folder = Path(argv[1]) if len(argv) > 1 else Path(".test-reports")
    phases = read_phases(folder / "phases.tsv")
    tests = [t for xml in sorted(folder.glob("*.xml")) for t in read_tests(xml.stem, xml)]
    cases = [(t.name.split("::")[0], t.seconds) for t in tests if t.phase == "real-nodes"]
    walls = module_walls(cases, ROOT)
    cpu = read_cpu(folder)
    print(render(phases, tests, cpu=render_cpu(cpu, walls)))
    if walls:
        header = (
            "# seconds<TAB>CPU-seconds<TAB>module of the real-node phase (scripts/test_report.py)\n"
        )
        (folder / "module_times.tsv").write_text(header + module_times(walls, cpu))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
