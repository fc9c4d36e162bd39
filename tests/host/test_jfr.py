"""JDK Flight Recorder on a real JVM: a small Java program that computes square roots in a
loop, recorded for two seconds with jcmd and read back with jfr as collapsed stacks."""

from __future__ import annotations

import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from casslab.errors import SetupError
from casslab.host import jfr
from casslab.report.flame.diff import method_shares
from casslab.report.flame.stacks import ProfileKind

pytestmark = pytest.mark.skipif(
    shutil.which("jcmd") is None or shutil.which("jfr") is None, reason="needs a full JDK"
)

BUSY = """
public class Busy {
    static class ExceptionHandler {  // a frame whose name holds "Exception", as Cassandra's do
        static double work(int n) { return Busy.work(n); }
    }
    static double work(int n) {
        double s = 0;
        for (int i = 0; i < n; i++) s += Math.sqrt(i) * Math.sin(i);
        return s;
    }
    public static void main(String[] a) {
        long end = System.currentTimeMillis() + 60_000;
        double t = 0;
        System.out.println("ready");
        while (System.currentTimeMillis() < end) {
            t += ExceptionHandler.work(100_000) + ("x" + t).length();
        }
        System.out.println(t);
    }
}
"""


@pytest.fixture
def busy_jvm(tmp_path: Path) -> Iterator[int]:
    source = tmp_path / "Busy.java"
    source.write_text(BUSY)
    process = subprocess.Popen(
        ["java", "-Xmx64m", str(source)], stdout=subprocess.PIPE, text=True, cwd=tmp_path
    )
    try:
        assert process.stdout is not None
        assert process.stdout.readline().strip() == "ready"
        yield process.pid
    finally:
        process.kill()
        process.wait()


def test_a_recording_of_the_measured_seconds_shows_the_hot_method(
    busy_jvm: int, tmp_path: Path
) -> None:
    jfr.start(busy_jvm, "casslab-test")
    time.sleep(2.0)
    recording = jfr.stop(busy_jvm, "casslab-test", tmp_path / "out" / "node1.jfr")
    assert recording.stat().st_size > 10_000
    cpu = jfr.collapsed_stacks(recording, ProfileKind.CPU)
    assert sum(cpu.values()) >= 20  # 10 ms sampling over 2 s of one busy thread
    shares = method_shares(cpu)
    assert shares["Busy.main"] > 80
    assert shares.get("Busy.work", 0) > 30
    assert shares.get("Busy$ExceptionHandler.work", 0) > 30  # a stack, not an error
    alloc = jfr.collapsed_stacks(recording, ProfileKind.ALLOC)
    assert all(w > 0 for w in alloc.values())


def test_stopping_a_recording_that_never_started_names_it(busy_jvm: int, tmp_path: Path) -> None:
    with pytest.raises(SetupError, match=r"stopping the JFR recording 'nothing' .* jcmd said"):
        jfr.stop(busy_jvm, "nothing", tmp_path / "x.jfr")
