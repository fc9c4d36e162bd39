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


def heap_problem(heap_mib: int, nodes: int, available_bytes: int, total_bytes: int) -> str | None:
    """Why ``nodes`` JVMs of ``heap_mib`` each cannot run here, or None.

    Each node needs its heap plus about :data:`OVERHEAD_MIB` off-heap; asking for more than
    the memory available now would swap the machine (or be killed by the kernel) and any
    latency measured would be the disk's, not Cassandra's.
    """
    need_mib = (heap_mib + OVERHEAD_MIB) * nodes
    available_mib = available_bytes // MIB
    if need_mib <= available_mib:
        return None
    fitting = max(0, available_mib // max(nodes, 1) - OVERHEAD_MIB) // 128 * 128
    advice = f"choose --heap {fitting}M or less" if fitting >= MIN_HEAP_MIB else "use fewer nodes"
    return (
        f"heap {heap_mib}M x {nodes} node(s) needs about {need_mib / 1024:.1f} GiB with "
        f"{OVERHEAD_MIB} MiB off-heap per node, but this machine has {available_mib / 1024:.1f}"
        f" GiB available ({total_bytes / MIB / 1024:.1f} GiB in all); {advice}"
    )
