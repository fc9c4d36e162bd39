"""The app's table of commands is what the command modules register, and a command loads
its own module only."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import typer
import typer.main

from casslab.cli.lazy import module_commands
from casslab.cli.main import COMMANDS, app

ROOT = Path(__file__).resolve().parents[2]


def test_the_table_names_every_command_each_module_registers_and_no_other() -> None:
    for module in set(COMMANDS.values()):
        listed = {name for name, owner in COMMANDS.items() if owner == module}
        assert set(module_commands(module)) == listed, module


def test_the_whole_app_lists_every_command_once() -> None:
    group = typer.main.get_group(app)
    ctx = typer.Context(group)
    names = group.list_commands(ctx)
    assert sorted(names) == sorted({"version", "doctor", "fetch", *COMMANDS})
    assert all(group.get_command(ctx, name) is not None for name in names)


def test_a_cluster_command_does_not_load_the_engine_or_the_planner() -> None:
    probe = (
        "import sys\n"
        "from casslab.cli.main import main\n"
        "sys.argv = ['casslab', 'status', '--help']\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "print(sorted(m for m in sys.modules if m.startswith(('casslab.cli.', 'numpy'))))"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout
    loaded = out.strip().splitlines()[-1]
    assert "casslab.cli.cluster" in loaded
    for other in ("casslab.cli.stress", "casslab.cli.capacity", "casslab.cli.tune", "numpy"):
        assert f"'{other}'" not in loaded, loaded


def _loaded_after(argv: list[str]) -> set[str]:
    """The modules a fresh interpreter holds after ``casslab ARGV`` (run in the checkout)."""
    probe = (
        "import sys\n"
        "from casslab.cli.main import main\n"
        f"sys.argv = ['casslab', *{argv!r}]\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "print(' '.join(sorted(sys.modules)))"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=ROOT
    ).stdout
    return set(out.strip().splitlines()[-1].split())


@pytest.mark.parametrize(
    "argv",
    [
        ["plan", "experiments/quick-compaction.yaml"],
        [
            "stress",
            "user",
            "profile=experiments/profiles/user-profile.yaml",
            "ops(insert=1)",
            "n=10",
            "--dry-run",
        ],
    ],
)
def test_reading_files_and_profiles_does_not_load_numpy_or_h5py(argv: list[str]) -> None:
    """numpy and h5py cost about a third of a second of each command: they load when a
    histogram is decoded or a vector dataset is built or read, not to parse a file."""
    heavy = {m for m in _loaded_after(argv) if m.split(".")[0] in ("numpy", "h5py")}
    assert heavy == set()


@pytest.mark.parametrize("argv", [["experiments"], ["report", "--help"], ["version"]])
def test_a_command_without_clusters_does_not_load_the_cluster_package(argv: list[str]) -> None:
    """The cluster package (its backends, their records) costs about 0.4 s to import:
    ``doctor`` and ``fetch`` live in their own module so the entry point does not load it."""
    assert "casslab.cluster" not in _loaded_after(argv)
