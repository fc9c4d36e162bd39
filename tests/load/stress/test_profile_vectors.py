"""Vector profiles: the dataset's binds, ANN queries and their recall_k, SAI indexes in
extra_definitions, and the bad inputs refused before anything starts (a dimension that
does not match the column, a dataset file of the wrong shape, k deeper than the ground
truth, more keys than vectors, a Cassandra without vectors)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from casslab.engine_contract.workload_spec import Connection, GenKind, WorkloadSpec
from casslab.errors import DatasetError, WorkloadSyntaxError
from casslab.load.stress.parse import parse_stress
from casslab.load.stress.profile import parse_profile
from casslab.load.stress.profile_cql import profile_schema_cql
from casslab.load.stress.profile_vectors import ann_recall_k, check_version
from casslab.load.vectors.texmex import write_fvecs, write_ivecs
from small_vectors import PROFILE, write_small_vectors

CONNECTION = Connection(contact_points=["127.0.0.1:9042"])
CATALOG = Path(__file__).parents[3] / "src" / "casslab" / "workloads" / "catalog" / "vector.yaml"


@pytest.fixture
def dataset(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """s_*.fvecs/ivecs of 100 vectors of dimension 8, ground truth 5 deep, beside p.yaml."""
    monkeypatch.setenv("CASSLAB_CACHE", str(tmp_path / "cache"))
    return write_small_vectors(tmp_path)


def spec(folder: Path, line: str) -> WorkloadSpec:
    return parse_stress(line).to_spec(CONNECTION, profile_dir=folder)


def test_insert_writes_base_vectors_and_ann_counts_recall(dataset: Path) -> None:
    insert = spec(dataset, "user profile=p.yaml ops(insert=1) n=100")
    assert insert.vectors is not None
    assert insert.vectors.base == str(dataset / "s_base.fvecs")
    assert (insert.vectors.dimension, insert.vectors.key_offset) == (8, 1)
    kinds = [g.kind for g in insert.operations[0].statements[0].binds]
    assert kinds == [GenKind.KEY_BIGINT, GenKind.INT, GenKind.BASE_VECTOR]
    search = spec(dataset, "user profile=p.yaml ops(ann=1,filtered=1) n=10")
    ann, filtered = search.operations
    assert ann.recall_k == 5
    assert [g.kind for g in ann.statements[0].binds] == [GenKind.QUERY_VECTOR]
    assert filtered.recall_k is None, "filtered: the ground truth is of the whole set"
    assert [g.kind for g in filtered.statements[0].binds] == [GenKind.INT, GenKind.QUERY_VECTOR]


def test_the_sai_index_is_created_after_the_table_in_the_keyspace() -> None:
    profile = parse_profile(PROFILE)
    schema = profile_schema_cql(profile)
    assert schema[-2].startswith("CREATE TABLE IF NOT EXISTS kv.t")
    assert schema[-1] == (
        "CREATE CUSTOM INDEX IF NOT EXISTS ON kv.t (v) USING 'StorageAttachedIndex'"
    )


@pytest.mark.parametrize(
    ("index", "words"),
    [
        ("CREATE CUSTOM INDEX ON t (c) USING 'org.example.Other'", "not an index casslab"),
        ("CREATE CUSTOM INDEX ON other (c) USING 'sai'", "a profile indexes its own table, 't'"),
        ("CREATE INDEX ON t (c) USING 'sai' WITH OPTIONS = {}; DROP TABLE t", "a ';'"),
    ],
)
def test_other_index_statements_are_refused(index: str, words: str) -> None:
    text = PROFILE.replace("CREATE CUSTOM INDEX ON t (v) USING 'StorageAttachedIndex'", index)
    with pytest.raises(WorkloadSyntaxError, match=words):
        parse_profile(text)


def test_a_dimension_that_does_not_match_the_column(dataset: Path) -> None:
    (dataset / "p.yaml").write_text(PROFILE.replace("vector<float, 8>", "vector<float, 4>"))
    with pytest.raises(DatasetError, match=r"dimension 8, but column 'v' is vector<float, 4>"):
        spec(dataset, "user profile=p.yaml ops(insert=1) n=100")


def test_a_dataset_file_of_the_wrong_shape(dataset: Path) -> None:
    base = dataset / "s_base.fvecs"
    base.write_bytes(base.read_bytes()[:-4])
    with pytest.raises(DatasetError, match="not a whole number of such vectors"):
        spec(dataset, "user profile=p.yaml ops(insert=1) n=100")
    write_fvecs(base, np.zeros((100, 8)))
    write_ivecs(dataset / "s_groundtruth.ivecs", np.zeros((3, 5)))
    with pytest.raises(DatasetError, match="has 3 rows, the queries"):
        spec(dataset, "user profile=p.yaml ops(insert=1) n=100")


def test_k_above_the_depth_of_the_ground_truth(dataset: Path) -> None:
    (dataset / "p.yaml").write_text(PROFILE.replace("LIMIT 5", "LIMIT 6"))
    with pytest.raises(DatasetError, match=r"LIMIT 6, but the ground truth .* holds 5"):
        spec(dataset, "user profile=p.yaml ops(ann=1) n=10")


def test_more_keys_than_base_vectors(dataset: Path) -> None:
    with pytest.raises(DatasetError, match=r"keys up to 101, but .* has 100 base vectors"):
        spec(dataset, "user profile=p.yaml ops(insert=1) n=101")


def test_a_cassandra_without_vectors() -> None:
    with pytest.raises(WorkloadSyntaxError, match=r"needs Cassandra 5.0 .* runs 4.1.5"):
        check_version("4.1.5", "p.yaml")
    check_version("5.0.9", "p.yaml")
    check_version("5.1.0", "p.yaml")


def test_an_ann_query_on_a_column_without_a_dataset() -> None:
    text = PROFILE.replace("vectors:\n  column: v\n  dataset: s_base.fvecs\n", "")
    profile = parse_profile(text)
    from casslab.engine_contract.workload_spec import Consistency
    from casslab.load.stress.profile_cql import profile_operations

    with pytest.raises(WorkloadSyntaxError, match="name that column in vectors: column:"):
        profile_operations(profile, {"ann": 1}, Consistency.ONE)


@pytest.mark.parametrize(
    ("vectors", "words"),
    [
        ("vectors: [v]", "vectors: must be a mapping"),
        ("vectors:\n  column: v\n  similarity: MANHATTAN", "vectors.similarity"),
        ("vectors:\n  column: c", "vectors.column 'c' is int"),
        ("vectors:\n  column: nope", "vectors.column 'nope' is not a column"),
    ],
)
def test_bad_vectors_settings(vectors: str, words: str, tmp_path: Path) -> None:
    text = PROFILE.replace("vectors:\n  column: v\n  dataset: s_base.fvecs\n", vectors + "\n")
    (tmp_path / "p.yaml").write_text(text)
    with pytest.raises(WorkloadSyntaxError, match=words):
        spec(tmp_path, "user profile=p.yaml ops(insert=1) n=10")


@pytest.mark.parametrize(
    ("cql", "k"),
    [
        ("SELECT id FROM t ORDER BY v ANN OF ? LIMIT 10", 10),
        ("select id from t order by v ann of ? limit 100", 100),
        ("SELECT id FROM t WHERE c = ? ORDER BY v ANN OF ? LIMIT 10", None),
        ("SELECT id FROM t WHERE id = ?", None),
    ],
)
def test_recall_k_is_the_limit_of_an_unfiltered_search(cql: str, k: int | None) -> None:
    assert ann_recall_k(cql) == k


def test_the_catalog_profile_parses_with_its_two_indexes() -> None:
    profile = parse_profile(CATALOG.read_text(), source=str(CATALOG))
    assert profile.vectors is not None
    assert profile.vectors.column == "embedding"
    assert sum("INDEX" in s for s in profile_schema_cql(profile)) == 2


def test_the_index_ranks_by_the_datasets_similarity(dataset: Path) -> None:
    euclidean = PROFILE.replace(
        "  - CREATE CUSTOM INDEX ON t (v) USING 'StorageAttachedIndex'",
        "  - >-\n    CREATE CUSTOM INDEX ON t (v) USING 'StorageAttachedIndex'\n"
        "    WITH OPTIONS = {'similarity_function': 'EUCLIDEAN'}",
    )
    (dataset / "p.yaml").write_text(euclidean)
    with pytest.raises(DatasetError, match="ranks by EUCLIDEAN, but the ground truth"):
        spec(dataset, "user profile=p.yaml ops(ann=1) n=10")
    synthetic = euclidean.replace("  dataset: s_base.fvecs\n", "  count: 100\n")
    (dataset / "p.yaml").write_text(
        synthetic.replace("column: v", "column: v\n  similarity: EUCLIDEAN")
    )
    assert spec(dataset, "user profile=p.yaml ops(ann=1) n=10").vectors is not None


def test_a_run_that_inserts_and_searches_searches_while_loading(
    dataset: Path, tmp_path: Path
) -> None:
    """ops(insert=1,ann=1) counts recall against the rows inserted (an empty table unless
    vectors: loaded: says how many it holds); a search or a load alone keeps the full truth."""
    mixed = spec(dataset, "user profile=p.yaml ops(insert=1,ann=1) n=100")
    assert mixed.vectors is not None
    assert mixed.vectors.preloaded_rows == 0
    for line in ("ops(ann=1)", "ops(insert=1)", "ops(insert=1,filtered=1)"):
        alone = spec(dataset, f"user profile=p.yaml {line} n=100")
        assert alone.vectors is not None
        assert alone.vectors.preloaded_rows is None, line
    loaded = PROFILE.replace("dataset: s_base.fvecs\n", "dataset: s_base.fvecs\n  loaded: 100\n")
    (tmp_path / "p.yaml").write_text(loaded)
    rewrites = spec(tmp_path, "user profile=p.yaml ops(insert=1,ann=1) n=100")
    assert rewrites.vectors is not None
    assert rewrites.vectors.preloaded_rows == 100
    (tmp_path / "p.yaml").write_text(loaded.replace("loaded: 100", "loaded: 101"))
    with pytest.raises(DatasetError, match=r"vectors.loaded is 101, but .* has 100 base vectors"):
        spec(tmp_path, "user profile=p.yaml ops(insert=1,ann=1) n=100")


def test_the_command_line_says_how_many_vectors_the_table_holds(dataset: Path) -> None:
    """``-vectors loaded=N`` over the profile's ``vectors: loaded:`` (0 here): the same
    profile searches a fresh table while loading, then under rewrites after a full load."""
    mixed = "user profile=p.yaml ops(insert=1,ann=1) n=100"
    assert spec(dataset, mixed).vectors.preloaded_rows == 0  # type: ignore[union-attr]
    rewrites = spec(dataset, f"{mixed} -vectors loaded=100")
    assert rewrites.vectors is not None
    assert rewrites.vectors.preloaded_rows == 100
    with pytest.raises(DatasetError, match=r"vectors.loaded is 101, but .* has 100 base vectors"):
        spec(dataset, f"{mixed} -vectors loaded=101")
    # a search alone keeps the full ground truth whatever the table holds
    assert spec(dataset, "user profile=p.yaml ops(ann=1) n=10 -vectors loaded=50").vectors


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("-vectors", r"-vectors \(nothing\): give loaded=N"),
        ("-vectors loaded=-1", r"-vectors 'loaded=-1'"),
        ("-vectors loaded=ten", r"-vectors 'loaded=ten'"),
        (
            "-vectors depth=5",
            r"-vectors: unknown option 'depth=5'; accepted form: -vectors loaded=N",
        ),
    ],
)
def test_bad_vectors_options_are_refused_naming_the_form(
    dataset: Path, line: str, message: str
) -> None:
    with pytest.raises(WorkloadSyntaxError, match=message):
        spec(dataset, f"user profile=p.yaml ops(insert=1,ann=1) n=100 {line}")


def test_vectors_options_need_a_vector_profile(tmp_path: Path) -> None:
    plain = (
        "keyspace: kv\ntable: t\ntable_definition: CREATE TABLE t (id bigint PRIMARY KEY, c int)\n"
    )
    (tmp_path / "plain.yaml").write_text(plain)
    with pytest.raises(
        WorkloadSyntaxError, match=r"-vectors loaded=5: profile .*plain.yaml has no vectors"
    ):
        spec(tmp_path, "user profile=plain.yaml ops(insert=1) n=10 -vectors loaded=5")
    with pytest.raises(
        WorkloadSyntaxError, match=r"-vectors loaded=5: give loaded=N .* user profile"
    ):
        parse_stress("write n=10 -vectors loaded=5")
