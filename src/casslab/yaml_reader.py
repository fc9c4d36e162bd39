"""Read the YAML document of a file (an experiment, a tune file, a capacity problem): syntax
errors and duplicate keys are reported with their line and column, as the caller's kind of
:class:`~casslab.errors.DocumentProblemsError` (pure: text in, data out)."""

from __future__ import annotations

from typing import Any

import yaml

from casslab.errors import DocumentProblemsError


class _Loader(yaml.SafeLoader):
    """A safe loader that notes duplicate mapping keys instead of silently keeping one."""

    duplicates: list[str]


def _mapping_without_duplicates(loader: _Loader, node: yaml.MappingNode) -> dict[Any, Any]:
    first_line: dict[Any, int] = {}
    for key_node, _ in node.value:
        if not isinstance(key_node, yaml.ScalarNode) or key_node.value == "<<":
            continue
        key = loader.construct_object(key_node)
        line = key_node.start_mark.line + 1
        if key in first_line:
            loader.duplicates.append(
                f"line {line}, column {key_node.start_mark.column + 1}: duplicate key "
                f"{key!r} (first at line {first_line[key]}); keep one"
            )
        else:
            first_line[key] = line
    loader.flatten_mapping(node)
    return dict(loader.construct_pairs(node))


_Loader.add_constructor(
    yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG,
    _mapping_without_duplicates,
)


def parse_yaml(
    text: str, source: str, raises: type[DocumentProblemsError] = DocumentProblemsError
) -> Any:
    """The YAML document in ``text``; syntax errors and duplicate keys raise ``raises`` (for
    the file ``source``) with their positions."""
    loader = _Loader(text)
    loader.duplicates = []
    try:
        data = loader.get_single_data()
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark else ""
        problem = error.problem or error.context or "invalid YAML"
        raise raises(source, [f"{where}YAML syntax: {problem}"]) from error
    except yaml.YAMLError as error:
        raise raises(source, [f"YAML syntax: {error}"]) from error
    finally:
        loader.dispose()
    if loader.duplicates:
        raise raises(source, loader.duplicates)
    return data
