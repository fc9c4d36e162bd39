"""Collapsed stacks: ``root;caller;callee`` -> weight, one line each in the text form
(``frame;frame;frame 42``) that flame-graph tools share; and JDK Flight Recorder's
``jfr print --json`` events made collapsed stacks (pure: the document in, stacks out).

What a profile kind reads (:data:`JFR_EVENTS`) and what one event weighs:

* ``cpu``   -- ``jdk.ExecutionSample`` (threads running Java code), 1 a sample;
* ``wall``  -- ``jdk.ExecutionSample`` and ``jdk.NativeMethodSample`` (threads in native
  code, e.g. waiting on a socket), 1 a sample;
* ``alloc`` -- ``jdk.ObjectAllocationSample``, its ``weight``: bytes allocated;
* ``lock``  -- ``jdk.JavaMonitorEnter`` and ``jdk.ThreadPark``, 1 a contended wait.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from casslab.analysis.profile_kind import JFR_EVENTS as JFR_EVENTS
from casslab.analysis.profile_kind import UNITS as UNITS
from casslab.analysis.profile_kind import ProfileKind as ProfileKind
from casslab.errors import AnalysisError

Collapsed = dict[str, int]
"""``frame;frame;frame`` (root first) -> weight."""


def parse_collapsed(text: str) -> Collapsed:
    """Collapsed stacks from their text form; a line that is not ``stack count`` is an
    AnalysisError naming it."""
    out: Collapsed = {}
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        stack, _, count = line.rstrip().rpartition(" ")
        if not stack or not count.isdigit():
            raise AnalysisError(
                f"collapsed stacks, line {number} {line!r}: expected 'frame;frame;... COUNT'"
            )
        out[stack] = out.get(stack, 0) + int(count)
    return out


def collapsed_text(stacks: Mapping[str, int]) -> str:
    """The text form, heaviest stack first."""
    ordered = sorted(stacks.items(), key=lambda kv: (-kv[1], kv[0]))
    return "".join(f"{stack} {count}\n" for stack, count in ordered)


def frame_name(frame: Mapping[str, Any]) -> str:
    """``org.apache.cassandra.db.Mutation.apply`` of a JFR frame (a frame without a method:
    ``?``); ``;`` and spaces, which the text form uses, become ``_``."""
    method = frame.get("method") or {}
    owner = ((method.get("type") or {}).get("name") or "").replace("/", ".")
    name = method.get("name") or "?"
    text = f"{owner}.{name}" if owner else name
    return text.replace(";", "_").replace(" ", "_")


def from_jfr_json(document: Mapping[str, Any], kind: ProfileKind) -> Collapsed:
    """The collapsed stacks of ``kind`` in a ``jfr print --json`` document (other events
    are skipped; a stack JFR truncated gets a ``[truncated]`` root)."""
    try:
        events = document["recording"]["events"]
    except (KeyError, TypeError) as error:
        raise AnalysisError(
            "JFR JSON: no recording.events; give the output of `jfr print --json FILE`"
        ) from error
    wanted = set(JFR_EVENTS[kind])
    out: Collapsed = {}
    for event in events:
        if event.get("type") not in wanted:
            continue
        values = event.get("values") or {}
        trace = values.get("stackTrace") or {}
        frames = [frame_name(f) for f in reversed(trace.get("frames") or [])]
        if not frames:
            continue
        if trace.get("truncated"):
            frames.insert(0, "[truncated]")
        weight = int(values.get("weight") or 0) if kind is ProfileKind.ALLOC else 1
        if weight <= 0:
            continue
        stack = ";".join(frames)
        out[stack] = out.get(stack, 0) + weight
    return out
