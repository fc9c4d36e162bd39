"""Named workloads: the cassandra-stress user profiles in ``catalog/`` (package data,
shipped in the wheel), each standing for a real application, named ``@NAME`` in
``profile=@NAME`` (``casslab stress user``, experiment files, tune, capacity). Each file
is a profile a user can copy and edit.

A profile's leading comment describes it: its first line is what it stands for, in one
line (``casslab workloads`` lists it); lines ``# load: COMMAND`` and ``# run: COMMAND``
are the commands that fill its table and run its mix (``casslab workloads show NAME``). A
profile without them gets the plain commands: insert, then insert with each query.

The catalog's profiles share one keyspace, ``casslab_workloads`` (each its own table), so
that an experiment, which creates, resets and captures one keyspace, can combine them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

from casslab.errors import WorkloadSyntaxError
from casslab.input_files import InputFileError, read_input
from casslab.record import Record

CATALOG_DIR: Final = Path(__file__).parent / "catalog"
PREFIX: Final = "@"


class UnknownWorkloadError(WorkloadSyntaxError):
    """``profile=@NAME`` names no workload of the catalog."""


class NamedWorkload(Record):
    """One catalog entry: its name, what it stands for and the commands that load and run it."""

    name: str
    summary: str
    load_command: str
    run_command: str
    path: Path


def workload_names() -> list[str]:
    """The catalog's names, sorted."""
    return sorted(p.stem for p in CATALOG_DIR.glob("*.yaml") if p.is_file())


def workload_path(name: str) -> Path:
    """The profile file of workload ``name`` (with or without its ``@``), or an error naming
    the known workloads."""
    bare = name.removeprefix(PREFIX)
    names = workload_names()
    if bare not in names:
        known = ", ".join(PREFIX + n for n in names) or "none (the catalog folder is empty)"
        raise UnknownWorkloadError(
            f"profile={PREFIX}{bare}: no such named workload; the catalog has {known} "
            "(`casslab workloads` lists them), or give a profile file's path"
        )
    return CATALOG_DIR / f"{bare}.yaml"


def profile_location(value: str, base_dir: Path | None) -> Path:
    """Where ``profile=VALUE`` is read: a catalog file for ``@NAME``, else the path,
    relative to ``base_dir`` when given and not absolute."""
    if value.startswith(PREFIX):
        return workload_path(value)
    path = Path(value).expanduser()
    if not path.is_absolute() and base_dir is not None:
        path = base_dir / path
    return path


def named_workload(name: str) -> NamedWorkload:
    """Workload ``name`` as its profile's leading comment describes it."""
    path = workload_path(name)
    try:
        text = read_input(path, what="named workload", fix="reinstall casslab")
    except InputFileError as error:
        raise WorkloadSyntaxError(str(error)) from None
    return describe(path.stem, text, path)


def describe(name: str, text: str, path: Path) -> NamedWorkload:
    """Pure: a profile's text and where it is -> its catalog entry (the module docstring)."""
    comments: list[str] = []
    for line in text.splitlines():
        if not line.startswith("#"):
            break
        comments.append(line.lstrip("#").strip())
    summary = next((c for c in comments if c), "(no description)")
    commands = {
        key: rest.strip()
        for key, sep, rest in (c.partition(":") for c in comments)
        if sep and key in ("load", "run")
    }
    command = f"casslab stress user profile={PREFIX}{name} 'ops(insert=1)'"
    return NamedWorkload(
        name=name,
        summary=summary,
        load_command=commands.get("load", f"{command} n=100000"),
        run_command=commands.get("run", f"{command} duration=60s"),
        path=path,
    )


def catalog() -> list[NamedWorkload]:
    """Every named workload, by name."""
    return [named_workload(n) for n in workload_names()]
