"""The JVM warm-up's stopping rule (pure) and its reading of a process's compiler threads."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from casslab.experiment.run.jvm_warmup import (
    CompilerBoost,
    WarmupRule,
    compiler_cpu_s,
    compiler_tasks,
    jit_quiet,
)

RULE = WarmupRule(min_s=20.0, max_s=120.0, window_s=5, quiet_pct=10.0)


def test_not_quiet_before_the_minimum_even_when_the_compilers_idle() -> None:
    assert not jit_quiet([0.0] * 19, 19.0, RULE)
    assert jit_quiet([0.0] * 20, 20.0, RULE)


def test_quiet_only_when_the_mean_of_the_last_window_is_under_the_threshold() -> None:
    busy = [40.0] * 30
    assert not jit_quiet(busy, 30.0, RULE)
    assert not jit_quiet([*busy, 0, 0, 0, 0, 55.0], 35.0, RULE)  # mean 11% > 10%
    assert jit_quiet([*busy, 9, 9, 9, 9, 9], 35.0, RULE)
    assert not jit_quiet([0.0, 0.0], 60.0, RULE)  # fewer samples than the window


def _spinning_jvm(tmp_path: Path) -> subprocess.Popen[str]:
    """A JVM (single-file source mode) that ran a loop hot enough for C1 and C2 to
    compile, then sleeps."""
    source = tmp_path / "Spin.java"
    source.write_text(
        "public class Spin { public static void main(String[] a) throws Exception {"
        " long s = 0; for (int i = 0; i < 400_000_000; i++) { s += i % 7; }"
        " System.out.println(s); Thread.sleep(30_000); } }"
    )
    proc = subprocess.Popen(["java", str(source)], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    proc.stdout.readline()  # the loop ran, compiled
    return proc


def _nice(pid: int, tid: int) -> int:
    stat = Path(f"/proc/{pid}/task/{tid}/stat").read_text()
    return int(stat[stat.rindex(")") + 2 :].split()[16])  # field 19: nice


def test_compiler_cpu_of_a_jvm_grows_and_of_no_process_is_none(tmp_path: Path) -> None:
    assert compiler_cpu_s(2**22 + 12345) is None
    assert compiler_cpu_s(os.getpid()) == 0.0  # Python has no JIT compiler threads
    proc = _spinning_jvm(tmp_path)
    try:
        used = compiler_cpu_s(proc.pid)
        assert used is not None
        assert used > 0
    finally:
        proc.kill()
        proc.wait()


@pytest.mark.skipif(os.geteuid() != 0, reason="lowering a nice value needs root")
def test_boost_raises_the_compiler_threads_priority_and_gives_each_its_own_back(
    tmp_path: Path,
) -> None:
    proc = _spinning_jvm(tmp_path)
    try:
        threads = compiler_tasks(proc.pid)
        assert threads
        before = {tid: _nice(proc.pid, tid) for tid in threads}
        boost = CompilerBoost(-10)
        boost.apply(list(threads))
        assert {_nice(proc.pid, tid) for tid in threads} == {-10}
        boost.apply(list(threads))  # a second pass keeps the first saved value
        boost.restore()
        assert {tid: _nice(proc.pid, tid) for tid in threads} == before
        assert not boost.saved
    finally:
        proc.kill()
        proc.wait()


def test_boost_of_threads_that_ended_changes_nothing() -> None:
    boost = CompilerBoost(-10)
    boost.apply([2**22 + 12345])
    assert boost.saved == {}
    boost.restore()
