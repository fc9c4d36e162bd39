"""Several user profiles in one run, as cassandra-stress takes them: ``profile=a.yaml,b.yaml``
with ``ops(alpha.insert=1,beta.read=2)``. Pure: parsed profiles in, engine operations and
schema out.

Each profile is named by its ``specname:`` (``keyspace.table`` when it has none); an
operation ``SPEC.OP`` is operation ``OP`` (``insert`` or a query) of the profile named
``SPEC`` (the name is what comes before the last dot), and a plain ``OP`` is one of the
first profile, as in stress. Two profiles with one name are refused. The schema is each
profile's, in order, each statement once; every statement names its keyspace, so the
profiles may use different keyspaces. Operations report under the names ``ops()`` gives.
"""

from __future__ import annotations

from casslab.engine_contract.workload_spec import Consistency, Operation
from casslab.errors import WorkloadSyntaxError
from casslab.load.stress.profile import StressProfile
from casslab.load.stress.profile_cql import profile_operations, profile_schema_cql


def profile_paths(value: str) -> list[str]:
    """The paths of ``profile=`` (comma-separated, as stress splits them)."""
    paths = [p.strip() for p in value.split(",")]
    if not all(paths):
        raise WorkloadSyntaxError(
            f"user: profile={value} has an empty path; write profile=a.yaml or "
            "profile=a.yaml,b.yaml"
        )
    return paths


def specname_of(profile: StressProfile) -> str:
    return profile.specname or f"{profile.keyspace}.{profile.table}"


def _named(profiles: list[tuple[StressProfile, str]]) -> dict[str, tuple[StressProfile, str]]:
    named: dict[str, tuple[StressProfile, str]] = {}
    for profile, source in profiles:
        name = specname_of(profile)
        if name in named:
            raise WorkloadSyntaxError(
                f"user: profiles {named[name][1]} and {source} are both named {name!r}; give "
                "each profile its own specname: (one profile per table, as cassandra-stress "
                "asks)"
            )
        named[name] = (profile, source)
    return named


def _split(key: str, names: list[str], first: StressProfile) -> tuple[str, str]:
    """``SPEC.OP`` -> (SPEC, OP); a plain ``OP`` (or a query of the first profile whose
    name has a dot) belongs to the first profile."""
    spec, dot, op = key.rpartition(".")
    if not dot or key in first.queries:
        return names[0], key
    if spec not in names:
        raise WorkloadSyntaxError(
            f"user ops({key}=...): {spec!r} names no profile of this run; the profiles are "
            f"{', '.join(names)} (their specname:, or keyspace.table). Write ops(SPEC.OP=W)"
        )
    return spec, op


def set_operations(
    profiles: list[tuple[StressProfile, str]],
    weights: dict[str, float],
    consistency: Consistency,
    *,
    serial_consistency: Consistency = Consistency.SERIAL,
) -> list[Operation]:
    """Operations of ``ops(...)`` over ``profiles`` (each with its source, for errors), in
    the order ``ops()`` gives them, named as ``ops()`` names them."""
    named = _named(profiles)
    names = list(named)
    operations: list[Operation] = []
    for key, weight in weights.items():
        spec, op = _split(key, names, profiles[0][0])
        profile, source = named[spec]
        [operation] = profile_operations(
            profile,
            {op: weight},
            consistency,
            serial_consistency=serial_consistency,
            source=source,
        )
        operations.append(operation.model_copy(update={"name": key}))
    return operations


def set_schema(profiles: list[tuple[StressProfile, str]]) -> list[str]:
    """Each profile's schema statements, in order, each once."""
    statements: list[str] = []
    for profile, _ in profiles:
        statements += [s for s in profile_schema_cql(profile) if s not in statements]
    return statements
