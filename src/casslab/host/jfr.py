"""JDK Flight Recorder on a running JVM of this machine, with the JDK's own tools (no
agent, nothing downloaded): :func:`start` and :func:`stop` a recording with ``jcmd``
(``JFR.start`` / ``JFR.stop``, which writes the file), and :func:`collapsed_stacks` of a
recording file with ``jfr print --json`` (:mod:`casslab.report.flame.stacks` reads it).

The tools are the ones beside the JVM's ``java`` (:func:`casslab.host.jdk.find_java`), so
that they match the JVM they attach to. ``settings=profile`` samples Java stacks every
10 ms (JFR's own default is 20 ms): the measured phase only, by starting and stopping
around it.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING

from casslab.analysis.profile_kind import JFR_EVENTS, ProfileKind
from casslab.errors import SetupError
from casslab.host.jdk import find_java

if TYPE_CHECKING:
    from casslab.report.flame.stacks import Collapsed

TOOL_TIMEOUT_S = 120.0
AT_BOOT = (
    "-XX:StartFlightRecording=name=casslab-boot,settings=default,duration=1s,filename=boot.jfr"
)
"""The JVM option that starts Flight Recorder with the JVM (a 1 s recording into the node's
directory). Why: the first ``JFR.start`` in a running JVM sets JFR up (it instruments JDK
classes), and the JIT then recompiles what it had compiled: measured here (Cassandra 5.0.9,
JDK 17, 1 node, 10 s write phases at 16 threads, a 2-core machine shared with other work),
17,700 ops/s before one runtime start/stop, then 5,200, 6,700 and 12,700 in the three phases
after it, as from a cold start; with JFR set up at boot, 24,500 before and 27,700-29,800
after. Nodes that will be profiled start with it, so that the recordings cost only what
they record."""


def _tool(name: str) -> Path:
    tool = find_java().with_name(name)
    if not tool.exists():
        raise SetupError(
            f"JDK Flight Recorder needs {tool}: install a full JDK (Debian: "
            "apt-get install openjdk-17-jdk-headless) or point JAVA_HOME at one"
        )
    return tool


def _run(argv: list[str], what: str, *, said_exception: bool = False) -> str:
    """The tool's output; a SetupError when it fails (``said_exception``: also when its
    output names an exception, as jcmd's does with exit status 0; never for ``jfr print``,
    whose stacks hold class names such as ``...ExceptionHandler``)."""
    try:
        done = subprocess.run(
            argv, capture_output=True, text=True, timeout=TOOL_TIMEOUT_S, check=False
        )
    except subprocess.TimeoutExpired as error:
        raise SetupError(
            f"{what}: no answer in {TOOL_TIMEOUT_S:.0f} s ({' '.join(argv)})"
        ) from error
    if done.returncode != 0 or (said_exception and "Exception" in done.stdout):
        reason = (done.stderr.strip() or done.stdout.strip()).splitlines()[-1:] or ["no output"]
        raise SetupError(f"{what} failed: {reason[0]} (command: {' '.join(argv)})")
    return done.stdout


def start(pid: int, name: str, *, settings: str = "profile") -> None:
    """Start recording ``name`` in JVM ``pid`` (kept in memory until :func:`stop`)."""
    _run(
        [str(_tool("jcmd")), str(pid), "JFR.start", f"name={name}", f"settings={settings}"],
        f"starting the JFR recording {name!r} in JVM {pid}",
        said_exception=True,
    )


def stop(pid: int, name: str, path: Path) -> Path:
    """Stop recording ``name`` in JVM ``pid`` and write it to ``path`` (made absolute: the
    JVM writes it, from its own working directory)."""
    target = path.resolve()
    target.parent.mkdir(parents=True, exist_ok=True)
    said = _run(
        [str(_tool("jcmd")), str(pid), "JFR.stop", f"name={name}", f"filename={target}"],
        f"stopping the JFR recording {name!r} of JVM {pid}",
        said_exception=True,
    )
    if not target.is_file():
        answer = " ".join(said.split()[-12:])
        raise SetupError(
            f"stopping the JFR recording {name!r} of JVM {pid} wrote no {target}; jcmd said: "
            f"{answer}"
        )
    return target


def collapsed_stacks(recording: Path, kind: ProfileKind) -> Collapsed:
    """The ``kind`` stacks of a recording file (``jfr print --json`` of its events)."""
    # here, not at the top: importing casslab.report loads its plotting and statistics
    # (seconds), which every command that can profile (stress, ycsb, run) would pay at start
    from casslab.report.flame.stacks import from_jfr_json

    events = ",".join(JFR_EVENTS[kind])
    text = _run(
        [str(_tool("jfr")), "print", "--json", "--events", events, str(recording)],
        f"reading the JFR recording {recording}",
    )
    return from_jfr_json(json.loads(text), kind)
