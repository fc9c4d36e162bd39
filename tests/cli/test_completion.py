"""Shell completion with Typer's own options: ``casslab --show-completion bash`` prints the
script ``--install-completion`` installs, and that script, sourced into a real bash, completes
casslab's commands through casslab itself (``_CASSLAB_COMPLETE=complete_bash``)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cli_entry import casslab

# without it Typer detects the shell it runs in and takes no shell name
NAMED_SHELL = {"_TYPER_COMPLETE_TEST_DISABLE_SHELL_DETECTION": "1"}


def _completions(words: str, index: int) -> list[str]:
    done = casslab(
        None,
        env={"_CASSLAB_COMPLETE": "complete_bash", "COMP_WORDS": words, "COMP_CWORD": str(index)},
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    return done.stdout.split()


def test_the_bash_script_names_casslab_and_its_completion_variable() -> None:
    done = casslab(None, "--show-completion", "bash", env=NAMED_SHELL)
    assert done.returncode == 0, done.stderr
    assert "complete -o default -F _casslab_completion casslab" in done.stdout
    assert "_CASSLAB_COMPLETE=complete_bash" in done.stdout


@pytest.mark.parametrize(
    ("words", "index", "expected"),
    [
        ("casslab stre", 1, ["stress"]),
        ("casslab re", 1, ["restart", "reset", "report"]),
        ("casslab capacity ", 2, ["find", "plan", "model", "size"]),
        ("casslab up --nod", 2, ["--nodes", "--node-size", "--node-version"]),
    ],
)
def test_a_prefix_completes_to_casslab_s_own_words(
    words: str, index: int, expected: list[str]
) -> None:
    assert sorted(_completions(words, index)) == sorted(expected)


@pytest.mark.skipif(shutil.which("bash") is None, reason="no bash on this machine")
def test_the_script_completes_in_bash(tmp_path: Path) -> None:
    script = tmp_path / "casslab.bash"
    shown = casslab(None, "--show-completion", "bash", env=NAMED_SHELL)
    script.write_text(shown.stdout)
    # the script calls the `casslab` on PATH: this environment's
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    typed = (
        f"source {script}; COMP_WORDS=(casslab stre); COMP_CWORD=1; "
        'complete -p casslab; _casslab_completion casslab; echo "reply: ${COMPREPLY[*]}"'
    )
    done = subprocess.run(
        ["bash", "--norc", "--noprofile", "-c", typed],
        capture_output=True,
        text=True,
        env={**os.environ, "PATH": path},
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "complete -o default -F _casslab_completion casslab",
        "reply: stress",
    ]
