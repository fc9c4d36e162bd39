"""The argument lists RemoteHost sends: user values stay single words, never shell text."""

from __future__ import annotations

import shlex
import subprocess
from pathlib import Path

import pytest

from casslab.errors import ConfigError
from casslab.remote import scripts


def test_a_command_line_quotes_every_word() -> None:
    argv = ["echo", "a b", "$(rm -rf /)", "x;y", "'q'"]
    line = scripts.command_line(argv)
    assert shlex.split(line) == argv
    out = subprocess.run(["sh", "-c", line], capture_output=True, text=True, check=True).stdout
    assert out == "a b $(rm -rf /) x;y 'q'\n"


def test_an_empty_command_is_refused() -> None:
    with pytest.raises(ConfigError, match="at least a program name"):
        scripts.command_line([])


def test_start_ticks_are_field_22_even_when_the_name_has_spaces_and_parens() -> None:
    fields = " ".join(str(n) for n in range(3, 30))  # fields 3.. as their own numbers
    stat = f"4242 (java (x) y) {fields.replace('3', 'S', 1)}"
    assert scripts.parse_start_ticks(stat) == 22


def test_the_signal_script_checks_start_ticks_before_signalling() -> None:
    sleeper = subprocess.Popen(["sleep", "30"], start_new_session=True)
    try:
        stat = Path(f"/proc/{sleeper.pid}/stat").read_text()
        ticks = scripts.parse_start_ticks(stat)
        wrong = scripts.signal_argv(sleeper.pid, ticks + 1, 15, group=True)
        assert subprocess.run(wrong, check=False).returncode == scripts.NOT_THERE
        assert sleeper.poll() is None
        probe = scripts.signal_argv(sleeper.pid, ticks, 0, group=False)
        assert subprocess.run(probe, check=False).returncode == 0
        right = scripts.signal_argv(sleeper.pid, ticks, 15, group=True)
        assert subprocess.run(right, check=False).returncode == 0
        assert sleeper.wait(timeout=5) == -15
    finally:
        sleeper.kill()
        sleeper.wait()


def test_environment_lines_refuse_bad_names_and_newlines() -> None:
    assert scripts.env_lines({"A_1": "x y", "B": ""}) == b"A_1=x y\nB=\n"
    with pytest.raises(ConfigError, match="letters, digits"):
        scripts.env_lines({"A-B": "x"})
    with pytest.raises(ConfigError, match="newline"):
        scripts.env_lines({"A": "x\ny"})


def test_the_env_script_exports_stdin_lines_literally_and_execs_the_command() -> None:
    value = "a b $(echo no) 'q' \\x"
    argv = scripts.with_env(["sh", "-c", 'echo "$V"; echo "${W-unset}"; echo "$$"'], "W")
    proc = subprocess.run(
        argv, input=scripts.env_lines({"V": value}), capture_output=True, check=True
    )
    out = proc.stdout.decode().splitlines()
    assert out[0] == value
    assert out[1] == "unset" or Path(f"/proc/{out[1]}/comm").read_text().startswith("sshd")


def test_the_env_script_refuses_a_bad_variable_name() -> None:
    with pytest.raises(ConfigError, match="letters, digits and _"):
        scripts.with_env(["true"], "BAD-NAME")
