"""``casslab run``'s progress, driven by the runner's events in a real process whose output
is a pipe (as ``casslab run ... > log`` or ``| tee``): the per-trial lines and nothing of
the bar; on a terminal (a pseudo-terminal here) the bar is drawn."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
CONTROL = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")  # colours, cursor moves

# two trials as the runner reports them; the interval's 1,000 op/s is the bar's status line
EVENTS = """\
import sys
sys.path.insert(0, sys.argv[1])
from casslab.cli.experiment import RunProgressView, run_progress
from casslab.experiment.design.plan_expansion import expand
from casslab.experiment.file.experiment_model import Experiment
from casslab.experiment.run import events
from run_literals import trial as result
from summary_literals import interval

experiment = Experiment.model_validate(
    {"name": "piped", "workload": "write", "measure": "duration=2s", "iterations": 2}
)
trials = expand(experiment).trials
with run_progress() as progress:
    view = RunProgressView(progress, total=0)
    view(events.RunStarted(total=2, pending=2))
    for index, trial in enumerate(trials):
        view(events.TrialStarted(trial=trial, index=index, count=2))
        view(events.PhaseStarted(trial=trial, phase="measure"))
        view(events.IntervalMeasured(trial=trial, record=interval(1.0)))
        done = result(trial.cell_id, trial.iteration, index, kpis={
            "op_rate": 13491.0 + index, "latency_p99_ms": 2.5})
        view(events.TrialFinished(trial=trial, result=done))
"""

TRIAL_LINES = [
    "trial baseline/1: 13,491 op/s, p99 2.5 ms",
    "trial baseline/2: 13,492 op/s, p99 2.5 ms",
]


def _environment() -> dict[str, str]:
    return {**os.environ, "COLUMNS": "120", "TERM": "xterm-256color"}


def test_piped_output_is_the_trial_lines_alone() -> None:
    done = subprocess.run(
        [sys.executable, "-c", EVENTS, str(TESTS)],
        capture_output=True,
        text=True,
        env=_environment(),
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == TRIAL_LINES
    assert done.stderr == ""


def test_on_a_terminal_the_bar_is_drawn() -> None:
    main, side = os.openpty()
    child = subprocess.Popen(
        [sys.executable, "-c", EVENTS, str(TESTS)],
        stdout=side,
        stderr=subprocess.PIPE,
        env=_environment(),
    )
    os.close(side)
    written = b""
    try:
        while chunk := os.read(main, 65536):
            written += chunk
    except OSError:  # EIO: the child closed the terminal
        pass
    finally:
        os.close(main)
    _, errors = child.communicate(timeout=120)
    assert child.returncode == 0, errors
    text = CONTROL.sub("", written.decode())
    assert "━" in text
    assert "2/2" in text
    assert all(line in text for line in TRIAL_LINES)
