"""The time of `make test`: each phase's wall time and the 30 slowest tests across all
phases (setup, call and teardown together, as pytest's JUnit report times them), read
from the reports `make test` writes into .test-reports/.

    python scripts/test_report.py [.test-reports]
"""

from __future__ import annotations

import sys
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

SLOWEST = 30


@dataclass(frozen=True)
class TestTime:
    phase: str
    name: str
    seconds: float


@dataclass(frozen=True)
class PhaseTime:
    name: str
    seconds: float
    status: int


def read_phases(path: Path) -> list[PhaseTime]:
    """``phases.tsv``: one line per phase, ``NAME<TAB>SECONDS<TAB>EXIT STATUS``."""
    phases: list[PhaseTime] = []
    if not path.is_file():
        return phases
    for line in path.read_text().splitlines():
        parts = line.split("\t")
        if len(parts) == 3:
            phases.append(PhaseTime(parts[0], float(parts[1]), int(parts[2])))
    return phases


def read_tests(phase: str, xml: Path) -> list[TestTime]:
    """Every test case of a JUnit XML report with its time."""
    times: list[TestTime] = []
    for case in ET.parse(xml).getroot().iter("testcase"):
        name = f"{case.get('classname', '')}::{case.get('name', '')}"
        times.append(TestTime(phase, name, float(case.get("time") or 0.0)))
    return times


def render(phases: list[PhaseTime], tests: list[TestTime], slowest: int = SLOWEST) -> str:
    lines = ["make test, phase by phase:"]
    for phase in phases:
        status = "ok" if phase.status == 0 else f"FAILED (exit {phase.status})"
        lines.append(f"  {phase.name:28s} {phase.seconds:8.1f} s  {status}")
    total = sum(p.seconds for p in phases)
    lines.append(f"  {'total':28s} {total:8.1f} s ({total / 60:.1f} min)")
    ranked = sorted(tests, key=lambda t: t.seconds, reverse=True)[:slowest]
    if ranked:
        lines.append(f"the {len(ranked)} slowest tests (setup + call + teardown):")
        lines += [f"  {t.seconds:7.1f} s  [{t.phase}] {t.name}" for t in ranked]
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    folder = Path(argv[1]) if len(argv) > 1 else Path(".test-reports")
    phases = read_phases(folder / "phases.tsv")
    tests = [t for xml in sorted(folder.glob("*.xml")) for t in read_tests(xml.stem, xml)]
    print(render(phases, tests))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
