"""One round trip a host a sampling instant: the host sampler and the process samplers of
one host read through views of one :class:`ProcBatch`, which reads every file any of them
wants in one go and hands the reading to every view that asks for the same instant.

The samplers pass the instant they sample (``at``, the recorder's ``now``); a request for
another instant (or with none) reads anew, so no instant ever gets an older one's
counters. On the first instant the batch learns what each view reads (a view whose files
the reading lacks reads again, with them).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

from casslab.metrics.proc_reader import HostFacts, ProcRead, ProcReader


class ProcBatch:
    """Shares the readings of ``reader`` between the views made by :meth:`view`."""

    def __init__(self, reader: ProcReader) -> None:
        self._reader = reader
        self._paths: dict[str, None] = {}  # ordered sets: every file and filesystem asked for
        self._fs: dict[str, None] = {}
        self._reading: ProcRead | None = None
        self._reading_at: float | None = None
        self._covers: frozenset[str] = frozenset()
        self._lock = threading.Lock()
        self.round_trips = 0

    @property
    def reader(self) -> ProcReader:
        return self._reader

    def view(self) -> BatchView:
        return BatchView(self)

    def read(
        self, paths: Sequence[str], fs: Sequence[str] = (), *, at: float | None = None
    ) -> ProcRead:
        """The files ``paths`` and filesystems ``fs`` as read for instant ``at``."""
        with self._lock:
            self._paths.update(dict.fromkeys(paths))
            self._fs.update(dict.fromkeys(fs))
            shared = (
                self._reading is not None
                and at is not None
                and at == self._reading_at
                and self._covers.issuperset((*paths, *fs))
            )
            if not shared or self._reading is None:
                self._reading = self._reader.read(list(self._paths), list(self._fs), at=at)
                self._reading_at = at
                self._covers = frozenset((*self._paths, *self._fs))
                self.round_trips += 1
            reading = self._reading
        return ProcRead(
            files={p: t for p in paths if (t := reading.files.get(p)) is not None},
            fs={d: u for d in fs if (u := reading.fs.get(d)) is not None},
        )


class BatchView:
    """A :class:`~casslab.metrics.proc_reader.ProcReader` reading through its batch."""

    def __init__(self, batch: ProcBatch) -> None:
        self._batch = batch

    @property
    def where(self) -> str:
        return self._batch.reader.where

    def facts(self) -> HostFacts:
        return self._batch.reader.facts()

    def block_device(self, path: str) -> str | None:
        return self._batch.reader.block_device(path)

    def read(
        self, paths: Sequence[str], fs: Sequence[str] = (), *, at: float | None = None
    ) -> ProcRead:
        return self._batch.read(paths, fs, at=at)
