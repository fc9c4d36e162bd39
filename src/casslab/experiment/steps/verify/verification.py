"""The file's ``verify: <consistency>``: every trial's measured phase reads back each write
the cluster acknowledged, and counts the lost ones (pure).

The load engine does the reading (:mod:`casslab.load.verify`): it remembers the key of
every acknowledged ``write`` of the measured phase and, once the phase ends, reads each
back at the file's consistency level. So a trial with ``faults:`` answers Cassandra's
promise directly: a write acknowledged at QUORUM is readable at QUORUM, whatever was down
meanwhile. The trial's KPIs:

* ``lost_writes``: acknowledged writes whose key read back no row;
* ``unverified_writes``: keys whose read-back failed (after retries): not counted as lost;
* ``verified_writes``: the distinct keys read back.

With several load clients each verifies its own share (the shares are disjoint) and the
merge sums them. A workload whose writes cannot be read back this way (counters, batches,
several tables) is refused before anything starts, by :func:`measured_spec`.
"""

from __future__ import annotations

from casslab.engine_contract.engine_records import SummaryRecord
from casslab.engine_contract.workload_spec import Consistency, WorkloadSpec
from casslab.errors import CasslabError, ExperimentError
from casslab.load.credentials import mask_text
from casslab.load.verify import with_verify

VERIFY_KPIS = ("lost_writes", "unverified_writes", "verified_writes")


def measured_spec(spec: WorkloadSpec, verify: Consistency | None, workload: str) -> WorkloadSpec:
    """The measured phase's ``spec``, reading back its acknowledged writes at ``verify``
    (unchanged without one); :class:`ExperimentError` naming the workload (``workload``,
    its command) and the fix when its writes cannot be verified."""
    if verify is None:
        return spec
    try:
        return with_verify(spec, verify, workload=repr(mask_text(workload)))
    except CasslabError as error:
        raise ExperimentError(f"verify: {error} (nothing was run)") from error


def verify_kpis(summary: SummaryRecord, verify: Consistency | None) -> dict[str, float | None]:
    """The read-back's KPIs from the engine's ``summary`` (none without ``verify``; None
    each when the engine skipped it, e.g. after an interruption)."""
    if verify is None:
        return {}
    stats = summary.verify
    if stats is None:
        return dict.fromkeys(VERIFY_KPIS)
    return {
        "lost_writes": float(stats.lost),
        "unverified_writes": float(stats.errors),
        "verified_writes": float(stats.checked),
    }
