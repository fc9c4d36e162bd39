"""Arrows point down (docs/design/layers.md): a module imports only its own package, the
packages in its layer and those in the layers below it. Every import is read, also the
ones inside functions and under ``TYPE_CHECKING``."""

from __future__ import annotations

from import_rules import SRC, imports_of

# The layers from the top down, each a tuple of packages or top-level modules; what is not
# named here is the ground floor (errors, record, units, paths, validation, yaml_reader,
# cqlaccess, pids, procgroup, cql_text, masking, input_files, the package's own __init__).
LAYERS: tuple[tuple[str, ...], ...] = (
    ("cli", "__main__", "doctor", "results"),  # the entry points and the notebook API
    ("tune",),
    ("experiment",),
    ("capacity",),
    ("faults",),
    ("metrics",),
    ("cluster",),
    ("net",),
    ("load",),
    ("workloads",),
    ("remote",),
    ("host",),
    ("report",),
    ("analysis",),
    ("store",),
    ("engine_contract",),
)
GROUND = len(LAYERS)


def layer_of(module: str) -> int:
    """The layer index of ``casslab.<part>...`` (0: top; :data:`GROUND`: the ground floor)."""
    parts = module.split(".")
    part = parts[1] if len(parts) > 1 else ""
    for index, members in enumerate(LAYERS):
        if part in members:
            return index
    return GROUND


def module_name(path_parts: tuple[str, ...]) -> str:
    names = [*path_parts[:-1], path_parts[-1].removesuffix(".py")]
    return ".".join(["casslab", *names])


def upward_imports() -> list[str]:
    found: list[str] = []
    for path in sorted(SRC.rglob("*.py")):
        own = module_name(path.relative_to(SRC).parts)
        for name in sorted(imports_of(path)):
            if not name.startswith("casslab.") or name.split(".")[1] == own.split(".")[1]:
                continue
            if layer_of(name) < layer_of(own):
                found.append(f"{path.relative_to(SRC)}: {name}")
    return found


def test_every_package_is_in_a_layer_or_on_the_ground_floor() -> None:
    packages = {p.name for p in SRC.iterdir() if p.is_dir() and (p / "__init__.py").is_file()}
    named = {member for layer in LAYERS for member in layer}
    assert packages - named == set()  # a new package takes its place in LAYERS


def test_no_import_runs_upward() -> None:
    assert upward_imports() == []


def test_the_rule_sees_an_upward_arrow() -> None:
    assert layer_of("casslab.cli.main") < layer_of("casslab.store.io") < GROUND
    assert layer_of("casslab.errors") == GROUND
