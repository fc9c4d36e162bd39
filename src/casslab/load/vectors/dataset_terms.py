"""What profiles and experiment files name about a vector dataset, without its maths: the
similarity functions Cassandra's vector index takes and the synthetic dataset's default
size. Parsing a profile imports only this module; numpy and h5py load when a dataset is
built or read (they cost a third of a second of every ``casslab`` command otherwise)."""

from __future__ import annotations

from enum import StrEnum

DEFAULT_COUNT = 20_000
DEFAULT_DIMENSION = 128
DEFAULT_QUERIES = 1000


class Similarity(StrEnum):
    """Cassandra 5.0's ``similarity_function`` of an SAI vector index (COSINE its default)."""

    COSINE = "COSINE"
    DOT_PRODUCT = "DOT_PRODUCT"
    EUCLIDEAN = "EUCLIDEAN"
