"""``after_operations:``: the file's checks (an operation on the timeline, one load engine, a
duration), and the thread that tells the engine its phase is over: a real child process
that answers SIGUSR1 as the engine does, told ``after_s`` after the timeline is over, and
never once the phase ended by itself."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from casslab.errors import ExperimentValidationError
from casslab.experiment.file.experiment_loader import load
from casslab.experiment.steps.faults.phase_end import PhaseEnd

FILE = """
name: ended
workload: write
measure: "duration=60s"
iterations: 1
faults:
  - {at: 5s, kind: restart, target: 1}
after_operations: 8s
"""

# answers SIGUSR1 by writing the time it came, then exits (as the engine ends its phase)
CHILD = """
import signal, sys, time
def ended(*_):
    open(sys.argv[1], "w").write(repr(time.monotonic()))
    sys.exit(0)
signal.signal(signal.SIGUSR1, ended)
print("ready", flush=True)
time.sleep(60)
"""


def _load(tmp_path: Path, text: str) -> object:
    path = tmp_path / "ended.yaml"
    path.write_text(text)
    return load(path)


def test_after_operations_is_seconds_after_the_timeline_is_over(tmp_path: Path) -> None:
    experiment = _load(tmp_path, FILE)
    assert experiment.after_operations_s == 8.0  # type: ignore[attr-defined]
    plain = _load(tmp_path, FILE.replace("after_operations: 8s\n", ""))
    assert plain.after_operations_s is None  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("change", "said"),
    [
        (
            ("kind: restart, target: 1}", "kind: kill, target: 1, for: 5s}"),
            "after_operations: the timeline has no operation (restart, repair, add-node, "
            "decommission, replace, upgrade, ...); faults last their for:, so give the "
            "measured phase its length with duration= instead, and remove after_operations",
        ),
        (
            ("iterations: 1", "iterations: 1\nclients: 2"),
            "after_operations: ends the phase of one load engine; with clients: the engines "
            "run their whole duration= (remove one of them)",
        ),
        (("after_operations: 8s", "after_operations: soon"), "after_operations"),
    ],
)
def test_after_operations_is_refused_where_it_cannot_end_the_phase(
    tmp_path: Path, change: tuple[str, str], said: str
) -> None:
    with pytest.raises(ExperimentValidationError) as refused:
        _load(tmp_path, FILE.replace(*change))
    assert said in " ".join(str(refused.value).split())


class Timeline:
    """What PhaseEnd asks of a fault timeline: over once ``over`` is set."""

    def __init__(self) -> None:
        self.over = threading.Event()
        self.stopped = False

    def wait_over(self, timeout_s: float | None = None) -> bool:
        return self.over.wait(timeout_s)


def _child(tmp_path: Path) -> tuple[subprocess.Popen[str], Path]:
    mark = tmp_path / "ended"
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(mark)], stdout=subprocess.PIPE, text=True
    )
    assert child.stdout is not None
    assert child.stdout.readline() == "ready\n"
    return child, mark


def test_the_engine_is_told_after_s_after_the_timeline_is_over(tmp_path: Path) -> None:
    child, mark = _child(tmp_path)
    timeline = Timeline()
    end = PhaseEnd(timeline, after_s=0.6)  # type: ignore[arg-type]
    try:
        end.engine_started(child.pid)
        time.sleep(0.8)
        assert child.poll() is None, "told before the timeline was over"
        over = time.monotonic()
        timeline.over.set()
        assert child.wait(timeout=10) == 0
        told = float(mark.read_text())
        assert 0.6 <= told - over < 3.0
        assert end.ended_at is not None
    finally:
        end.close()
        child.kill()
        child.wait()


def test_a_phase_that_ended_first_is_not_told(tmp_path: Path) -> None:
    child, mark = _child(tmp_path)
    timeline = Timeline()
    end = PhaseEnd(timeline, after_s=0.3)  # type: ignore[arg-type]
    try:
        end.engine_started(child.pid)
        timeline.over.set()
        end.close()  # the engine ended before the delay was up
        time.sleep(0.8)
        assert child.poll() is None
        assert not mark.exists()
        assert end.ended_at is None
    finally:
        child.kill()
        child.wait()
