"""Read the YAML document of a file (an experiment, a tune file, a capacity problem, a user
profile): syntax errors and duplicate keys are reported with their line and column, as the
caller's kind of :class:`~casslab.errors.DocumentProblemsError` (pure: text in, data out).

Bounded, so a hostile file can neither hang casslab nor exhaust its memory: at most
:data:`MAX_YAML_CHARS` characters, nesting at most :data:`MAX_YAML_DEPTH` deep, at most
:data:`MAX_YAML_ALIASES` aliases (``*name``) and :data:`MAX_YAML_NODES` values once every
alias is expanded (a "billion laughs" document expands to far more). Depth and aliases are
counted on the parser's events, before any recursion.
"""

from __future__ import annotations

from typing import Any, Final

import yaml

from casslab.errors import DocumentProblemsError


class _Loader(yaml.SafeLoader):
    """A safe loader that notes duplicate mapping keys instead of silently keeping one."""

    duplicates: list[str]


# libyaml's parser, when PyYAML was built with it (its wheels are): about ten times faster
# than the pure-Python parser, with the same safe constructor. A document it finds a
# problem in is read again by :class:`_Loader`, whose messages casslab words its own.
# (typed as _Loader: the same constructor methods, and its ``duplicates`` is set per read)
_CSafeLoader: type[yaml.SafeLoader] | None = getattr(yaml, "CSafeLoader", None)
_FastLoader: type[_Loader] | None = (
    None if _CSafeLoader is None else type("_FastLoader", (_CSafeLoader,), {})
)


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


for _loader in (_Loader, _FastLoader):
    if _loader is not None:
        _loader.add_constructor(
            yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _mapping_without_duplicates
        )


MAX_YAML_CHARS: Final = 4 * 1024 * 1024
MAX_YAML_DEPTH: Final = 64
MAX_YAML_ALIASES: Final = 1000
MAX_YAML_NODES: Final = 200_000


def _limit_problem(text: str) -> str | None:
    """Why ``text`` is past a bound (checked on the parser's events: no recursion), or None.
    Syntax errors are left to the loader, which words them with their position."""
    if len(text) > MAX_YAML_CHARS:
        return f"{len(text)} characters, past the limit of {MAX_YAML_CHARS} for a YAML file"
    depth = aliases = 0
    try:
        for event in yaml.parse(text, Loader=_CSafeLoader or yaml.SafeLoader):
            if isinstance(event, yaml.CollectionStartEvent):
                depth += 1
                if depth > MAX_YAML_DEPTH:
                    line = event.start_mark.line + 1 if event.start_mark else "?"
                    return (
                        f"line {line}: nested more than {MAX_YAML_DEPTH} levels deep, the "
                        "limit for a YAML file; flatten it"
                    )
            elif isinstance(event, yaml.CollectionEndEvent):
                depth -= 1
            elif isinstance(event, yaml.AliasEvent):
                aliases += 1
                if aliases > MAX_YAML_ALIASES:
                    return (
                        f"more than {MAX_YAML_ALIASES} aliases (*name), the limit for a YAML "
                        "file; write the values out"
                    )
    except yaml.YAMLError:
        return None
    return None


def _expanded_size(node: yaml.Node, sizes: dict[int, int]) -> int:
    """Values under ``node`` with every alias expanded (shared nodes counted each time they
    are used, computed once each)."""
    known = sizes.get(id(node))
    if known is not None:
        return known
    size = 1
    if isinstance(node, yaml.SequenceNode):
        size += sum(_expanded_size(child, sizes) for child in node.value)
    elif isinstance(node, yaml.MappingNode):
        size += sum(_expanded_size(k, sizes) + _expanded_size(v, sizes) for k, v in node.value)
    sizes[id(node)] = min(size, MAX_YAML_NODES + 1)
    return sizes[id(node)]


def parse_yaml(
    text: str, source: str, raises: type[DocumentProblemsError] = DocumentProblemsError
) -> Any:
    """The YAML document in ``text``; syntax errors and duplicate keys raise ``raises`` (for
    the file ``source``) with their positions."""
    problem = _limit_problem(text)
    if problem is not None:
        raise raises(source, [problem])
    if _FastLoader is not None:
        try:
            return _load(text, source, raises, _FastLoader)
        except DocumentProblemsError:
            pass  # worded as the pure-Python parser words it, below
    return _load(text, source, raises, _Loader)


def _load(text: str, source: str, raises: type[DocumentProblemsError], kind: type[_Loader]) -> Any:
    """The document in ``text`` read by a loader of ``kind`` (see :func:`parse_yaml`)."""
    try:
        loader = kind(text)
    except yaml.reader.ReaderError as error:  # a character YAML does not allow
        code = error.character if isinstance(error.character, int) else ord(error.character)
        raise raises(
            source,
            [
                f"character U+{code:04X} at position {error.position} is not allowed "
                "in YAML; is it the right file?"
            ],
        ) from None
    loader.duplicates = []
    try:
        node = loader.get_single_node()
        if node is not None and _expanded_size(node, {}) > MAX_YAML_NODES:
            raise raises(
                source,
                [
                    f"more than {MAX_YAML_NODES} values once its aliases (*name) are "
                    "expanded, the limit for a YAML file; write fewer"
                ],
            )
        data = None if node is None else loader.construct_document(node)
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
