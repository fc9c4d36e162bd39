"""What a server profile measures (:class:`ProfileKind`, the experiment file's
``profile:``), the JDK Flight Recorder events each kind reads and the unit of their weight.
Light on purpose: the experiment file's model imports it."""

from __future__ import annotations

from enum import StrEnum


class ProfileKind(StrEnum):
    """What a profile measures."""

    CPU = "cpu"
    ALLOC = "alloc"
    LOCK = "lock"
    WALL = "wall"


JFR_EVENTS: dict[ProfileKind, tuple[str, ...]] = {
    ProfileKind.CPU: ("jdk.ExecutionSample",),
    ProfileKind.WALL: ("jdk.ExecutionSample", "jdk.NativeMethodSample"),
    ProfileKind.ALLOC: ("jdk.ObjectAllocationSample",),
    ProfileKind.LOCK: ("jdk.JavaMonitorEnter", "jdk.ThreadPark"),
}
UNITS = {
    ProfileKind.CPU: "samples",
    ProfileKind.WALL: "samples",
    ProfileKind.ALLOC: "bytes",
    ProfileKind.LOCK: "waits",
}
