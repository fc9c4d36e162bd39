"""Default JVM heap for local nodes: fit the machine so a laptop never swaps."""

from __future__ import annotations

MIB = 1024 * 1024
# Beyond the heap, a node uses off-heap memory (memtables off-heap pools, direct buffers,
# metaspace, thread stacks): budget this much per node on top of the heap.
OVERHEAD_MIB = 512
MIN_HEAP_MIB = 256
MAX_HEAP_MIB = 2048


def default_heap(available_bytes: int, nodes: int, share: float = 0.5) -> str:
    """Heap per node so that ``nodes`` JVMs use at most ``share`` of available memory.

    Rounded down to 128 MiB, clamped to 256M..2G. Raises ValueError if even the minimum
    does not fit.
    """
    budget_mib = int(available_bytes * share) // MIB // max(nodes, 1) - OVERHEAD_MIB
    heap = min(MAX_HEAP_MIB, budget_mib // 128 * 128)
    if heap < MIN_HEAP_MIB:
        need = (MIN_HEAP_MIB + OVERHEAD_MIB) * nodes / share / 1024
        raise ValueError(
            f"{nodes} node(s) need about {need:.1f} GiB available memory "
            f"({available_bytes / MIB / 1024:.1f} GiB is); use fewer nodes or free memory"
        )
    return f"{heap}M"
