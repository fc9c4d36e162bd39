"""The part of a cluster's state its backend keeps (``ClusterState.backend_state``): each
backend's record sits in its folder, tagged with its ``backend`` (an isolated cluster's
limits and network, an ssh cluster's hosts, how an external cluster is reached; a local
cluster keeps none).

Before the tagged field, ``state.json`` kept one slot per backend at its top level
(``isolated``, ``external``, ``ssh``, each null or a mapping): :func:`from_slots` reads them
into the tagged field. :func:`record_of` and :func:`record_or_none` are what each backend's
accessor asks of the field, and :func:`record_of` refuses as it says
(``isolated_of``, ``ssh_hosts_of``, ``external_of``). Pure."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeVar

from casslab.cluster.cluster_spec import BackendKind
from casslab.errors import ClusterError

if TYPE_CHECKING:
    from casslab.cluster.model import ClusterState

R = TypeVar("R")

FIELD = "backend_state"

SLOTS: dict[str, BackendKind] = {
    "isolated": BackendKind.ISOLATED,
    "external": BackendKind.EXTERNAL,
    "ssh": BackendKind.SSH,
}
"""The top-level keys of a state written before the tagged field, and whose record each
held. Frozen: a new backend has no slot to read."""


def from_slots(data: Any) -> Any:
    """A raw state with its old slots (:data:`SLOTS`) read into the tagged field: the one
    that holds a record, tagged with its backend (none: a local cluster, or a state of
    another backend written without its record). A state without the slots is as given."""
    if not isinstance(data, dict) or not SLOTS.keys() & data.keys():
        return data
    if FIELD in data:
        given = ", ".join(k for k in SLOTS if k in data)
        raise ValueError(f"{FIELD} and {given}: a state keeps its backend's record once")
    held = {key: data[key] for key in SLOTS if data.get(key) is not None}
    if len(held) > 1:
        raise ValueError(f"{', '.join(held)}: a state keeps one backend's record")
    out = {k: v for k, v in data.items() if k not in SLOTS}
    for key, record in held.items():
        kind = SLOTS[key]
        out[FIELD] = {"backend": kind, **record} if isinstance(record, dict) else record
    return out


def record_or_none(state: ClusterState, kind: type[R]) -> R | None:
    """``state``'s backend record if it is a ``kind``; None when it holds none or another
    backend's."""
    record = state.backend_state
    return record if isinstance(record, kind) else None


def record_of(state: ClusterState, kind: type[R], backend: BackendKind, what: str) -> R:
    """``state``'s backend record, a ``kind`` (the record of ``backend``): a
    :class:`TypeError` for another backend's cluster (the registry hands a backend its own
    clusters only, as ``as_isolated`` refuses another backend's spec), a
    :class:`ClusterError` when a cluster of ``backend`` lacks its ``what`` record."""
    record = record_or_none(state, kind)
    if record is not None:
        return record
    if state.spec.backend is not backend:
        raise TypeError(
            f"the {backend.value} backend got a {state.spec.backend.value} cluster's state"
        )
    raise ClusterError(f"cluster {state.spec.name!r}: its state has no {what} record")
