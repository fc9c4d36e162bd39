"""Vector search in a user profile: the casslab key ``vectors:`` and ANN queries.

A profile with a ``vector<float, n>`` column fills it from a dataset rather than random
floats, and its ANN queries count recall@k against the dataset's ground truth::

    vectors:
      column: embedding        # the vector<float, n> column the dataset fills
      dataset: sift_base.fvecs # optional: X_base.fvecs (TEXMEX) or an .hdf5 file
                               # (ann-benchmarks), relative to the profile; without it a
                               # synthetic clustered set with exact ground truth
      count: 20000             # synthetic only: base vectors (queries: 1000, depth 100)
      similarity: COSINE       # synthetic only: COSINE, DOT_PRODUCT or EUCLIDEAN
      loaded: 0                # search while loading: base vectors (keys 1..loaded) the
                               # table holds when a run mixing insert and ANN starts

Base vector ``i`` is written as partition key ``i + 1``: the key is one ``bigint`` (or
``int``) column, and ``insert`` with keys ``1..count`` (``n=count``) writes the whole
set. A query ``SELECT key FROM t ORDER BY col ANN OF ? LIMIT k`` binds query vector
``cycle mod queries`` and counts recall@k; with a ``WHERE`` predicate (filtered search)
it runs the same way but counts no recall (the ground truth is of the whole set).

A run whose operations both insert base vectors and count recall (``ops(insert=1,ann=1)``)
searches while loading: recall@k is counted as the field counts it, against the true
neighbours already inserted (those of keys ``1..loaded`` plus the inserts this run saw
acknowledged), and a query whose stored neighbours run out before k inserted ones is
counted apart as unjudged. ``loaded`` defaults to 0 (a fresh table); after a full load,
searching under rewrites, set it to the count loaded, or give ``-vectors loaded=N`` on the
command line (it wins over the profile's).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import Field, ValidationError

from casslab.engine_contract.workload_spec import Generator, GenKind, Operation, VectorFiles
from casslab.errors import DatasetError, WorkloadSyntaxError
from casslab.load.stress.cql_types import parse_cql_type
from casslab.load.stress.profile_checks import INDEX
from casslab.load.vectors.dataset_terms import DEFAULT_COUNT, Similarity
from casslab.record import Record

if TYPE_CHECKING:
    from casslab.load.stress.profile import StressProfile

KEY_OFFSET = 1
_ANN = re.compile(r'\bORDER\s+BY\s+("[^"]+"|[A-Za-z_]\w*)\s+ANN\s+OF\s+\?', re.I)
_LIMIT = re.compile(r"\bLIMIT\s+(\d+)\s*$", re.I)
_WHERE = re.compile(r"\bWHERE\b", re.I)
_FIRST = re.compile(r'^\s*SELECT\s+("[^"]+"|[A-Za-z_]\w*)', re.I)


class VectorSpec(Record):
    """A profile's ``vectors:`` (see the module docstring)."""

    column: str
    dataset: str | None = None
    count: int = Field(default=DEFAULT_COUNT, ge=1, le=10_000_000)
    similarity: Similarity = Similarity.COSINE
    loaded: int = Field(default=0, ge=0)


def check_version(version: str, source: str) -> None:
    """Vectors (``vector<float, n>``, SAI vector indexes, ``ANN OF``) came with Cassandra
    5.0: a vector profile against an older cluster fails here, before anything runs."""
    major = version.split(".")[0]
    if major.isdigit() and int(major) < 5:
        raise WorkloadSyntaxError(
            f"user profile {source}: vectors: needs Cassandra 5.0 or later (vector<float, n>, "
            f"SAI vector indexes, ORDER BY ... ANN OF ?), but the cluster runs {version}; "
            "start one with `casslab up --fresh --version 5.0.9`"
        )


def parse_vectors(raw: Any, source: str) -> VectorSpec | None:
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise WorkloadSyntaxError(
            f"user profile {source}: vectors: must be a mapping (column:, and optionally "
            "dataset:, count:, similarity:)"
        )
    try:
        return VectorSpec.model_validate(raw)
    except ValidationError as e:
        first = e.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise WorkloadSyntaxError(
            f"user profile {source}: vectors.{where}: {first['msg']} (column: names the "
            "vector column; similarity: COSINE, DOT_PRODUCT or EUCLIDEAN; loaded: the base "
            "vectors the table holds before a run that inserts and searches)"
        ) from None


def ann_column(cql: str) -> tuple[str, int] | None:
    """The column an ``ORDER BY col ANN OF ?`` orders by and where its marker is."""
    match = _ANN.search(cql)
    if match is None:
        return None
    return match.group(1).strip('"'), match.end() - 1


def ann_recall_k(cql: str) -> int | None:
    """The ``LIMIT`` of an unfiltered ANN query (recall@k is counted), else None."""
    if _ANN.search(cql) is None or _WHERE.search(cql):
        return None
    limit = _LIMIT.search(cql)
    return int(limit.group(1)) if limit else None


def query_vector(column: str) -> Generator:
    return Generator(kind=GenKind.QUERY_VECTOR, column=column)


def base_vector(column: str) -> Generator:
    return Generator(kind=GenKind.BASE_VECTOR, column=column)


def index_similarity(profile: StressProfile) -> str | None:
    """The similarity function of the profile's SAI index on the vector column (COSINE,
    Cassandra's default, when the index names none); None without such an index."""
    assert profile.vectors is not None
    column = profile.vectors.column
    for text in profile.extra_definitions:
        on = re.search(r'\bON\s+("[^"]+"|\w+)\s*\(\s*("[^"]+"|\w+)\s*\)', text, re.I)
        if INDEX.match(text) and on is not None and on.group(2).strip('"') == column:
            named = re.search(r"'similarity_function'\s*:\s*'(\w+)'", text, re.I)
            return named.group(1).upper() if named else Similarity.COSINE.value
    return None


def _dimension(profile: StressProfile, column: str, source: str) -> int:
    names = [c.name for c in profile.columns]
    if column not in names:
        raise WorkloadSyntaxError(
            f"user profile {source}: vectors.column {column!r} is not a column of the table "
            f"({', '.join(names)})"
        )
    cql_type = parse_cql_type(profile.type_of(column), what=f"user profile {source}")
    if cql_type.name != "vector" or cql_type.params[0].name != "float":
        raise WorkloadSyntaxError(
            f"user profile {source}: vectors.column {column!r} is {cql_type.cql()}; the "
            "dataset fills a vector<float, n> column"
        )
    assert cql_type.dimension is not None
    return cql_type.dimension


def _check_key(profile: StressProfile, source: str) -> None:
    key = profile.partition_key
    if len(key) != 1 or profile.type_of(key[0]) not in ("bigint", "int"):
        raise WorkloadSyntaxError(
            f"user profile {source}: vectors: needs one bigint (or int) partition key column "
            f"(base vector i is written as key i + 1), got PRIMARY KEY ({', '.join(key)})"
        )


def vector_files(
    profile: StressProfile,
    operations: list[Operation],
    *,
    source: str,
    profile_dir: Path | None,
    keys_max: int,
) -> VectorFiles:
    """The dataset a vector profile names, resolved (generated or converted into the
    cache once) and checked against the column, the ANN queries' k and the keys."""
    spec = profile.vectors
    assert spec is not None
    dimension = _dimension(profile, spec.column, source)
    _check_key(profile, source)
    path = None
    if spec.dataset is not None:
        path = Path(spec.dataset).expanduser()
        if not path.is_absolute() and profile_dir is not None:
            path = profile_dir / path
    from casslab.load.vectors.files import dataset_files  # numpy: only for vector profiles

    files = dataset_files(path, similarity=spec.similarity, count=spec.count, dimension=dimension)
    where = "the synthetic set" if path is None else str(path)
    indexed = index_similarity(profile)
    if indexed is not None and indexed != files.similarity.value:
        raise DatasetError(
            f"user profile {source}: the index on {spec.column!r} ranks by {indexed}, but "
            f"the ground truth of {where} is by {files.similarity.value}; recall would be "
            f"counted against other neighbours. Set 'similarity_function': "
            f"'{files.similarity.value}' in the index (or similarity: for the synthetic set)"
        )
    if files.dimension != dimension:
        raise DatasetError(
            f"user profile {source}: the dataset ({where}) has vectors of dimension "
            f"{files.dimension}, but column {spec.column!r} is vector<float, {dimension}>; "
            "make them the same"
        )
    for op in operations:
        if op.recall_k is not None and op.recall_k > files.depth:
            raise DatasetError(
                f"user profile {source}: query {op.name!r} asks LIMIT {op.recall_k}, but the "
                f"ground truth of {where} holds {files.depth} neighbours per query; recall@k "
                f"needs k <= {files.depth}: lower the LIMIT"
            )
        if op.recall_k is not None:
            first = _FIRST.match(op.statements[0].cql)
            if first is None or first.group(1).strip('"') != profile.partition_key[0]:
                raise WorkloadSyntaxError(
                    f"user profile {source}: query {op.name!r} counts recall by the key it "
                    f"returns first; write SELECT {profile.partition_key[0]} FROM ..."
                )
    writes = any(
        g.kind is GenKind.BASE_VECTOR for op in operations for s in op.statements for g in s.binds
    )
    if writes and keys_max - KEY_OFFSET >= files.count:
        raise DatasetError(
            f"user profile {source}: insert writes keys up to {keys_max}, but {where} has "
            f"{files.count} base vectors (keys 1..{files.count}); use n={files.count} or less"
        )
    return VectorFiles(
        base=str(files.base),
        queries=str(files.queries),
        ground_truth=str(files.ground_truth),
        dimension=files.dimension,
        key_offset=KEY_OFFSET,
        preloaded_rows=_preloaded_rows(spec, operations, files.count, writes, where, source),
    )


def _preloaded_rows(
    spec: VectorSpec,
    operations: list[Operation],
    count: int,
    writes: bool,
    where: str,
    source: str,
) -> int | None:
    """Search while loading: the rows the table holds before a run that both inserts base
    vectors and counts recall (``loaded:``, 0 by default); None for any other run (recall
    against the full ground truth)."""
    if spec.loaded > count:
        raise DatasetError(
            f"user profile {source}: vectors.loaded is {spec.loaded}, but {where} has "
            f"{count} base vectors; the table holds at most all of them: loaded: {count} or less"
        )
    searches = any(op.recall_k is not None for op in operations)
    return spec.loaded if writes and searches else None
