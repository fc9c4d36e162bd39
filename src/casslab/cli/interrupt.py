"""SIGINT, SIGTERM and SIGHUP all end casslab as Ctrl-C does, with every clean-up run.

`kill`, `timeout`, a CI runner and a closed terminal send SIGTERM or SIGHUP, whose default
action ends Python at once: no ``finally`` runs, so Cassandra JVMs, load engines and
temporary directories would be left behind. :func:`install` makes the first of these
signals raise :class:`KeyboardInterrupt` in the main thread instead, so the clean-up each
command already does for Ctrl-C runs for all three. Later signals, which arrive while that
clean-up stops nodes (each stop has its own deadline), do not cut it short; they are noted
on standard error. (SIGKILL cannot be caught: the load engine then stops by itself, see
``engine/src/parent.rs``, and ``casslab down`` or ``casslab run --resume`` stop the nodes.)
"""

from __future__ import annotations

import contextlib
import os
import signal
from types import FrameType

SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)

_received: list[int] = []


class Interrupted(Exception):  # noqa: N818 - it is what the user sees: "Interrupted"
    """A command was interrupted after its clean-up; ``hint`` says how to carry on.

    Not a :class:`KeyboardInterrupt`: the CLI framework turns those into a bare exit status
    before casslab can say anything.
    """

    def __init__(self, hint: str) -> None:
        super().__init__(hint)
        self.hint = hint


def install() -> None:
    """Handle SIGINT, SIGTERM and SIGHUP as an interrupt (call in the main thread). A signal
    ignored on entry stays ignored: ``nohup casslab run ...`` must survive a closed terminal."""
    _received.clear()
    for signum in SIGNALS:
        if signal.getsignal(signum) is not signal.SIG_IGN:
            signal.signal(signum, _on_signal)


def _on_signal(signum: int, frame: FrameType | None) -> None:
    _received.append(signum)
    if len(_received) == 1:
        raise KeyboardInterrupt
    with contextlib.suppress(OSError):  # a closed terminal has no stderr left
        os.write(
            2,
            f"\n{signal.Signals(signum).name}: still stopping what this command started "
            f"(kill -9 {os.getpid()} abandons it)\n".encode(),
        )


def received() -> int | None:
    """The first signal handled, if any."""
    return _received[0] if _received else None


def exit_status() -> int:
    """128 + the signal number, the shell's convention (130 for Ctrl-C or no signal)."""
    return 128 + (received() or signal.SIGINT)


def message(hint: str | None = None) -> str:
    """What casslab says on standard error when it stops on an interrupt."""
    signum = received()
    by = f" by {signal.Signals(signum).name}" if signum is not None else ""
    return f"Interrupted{by}" + (f"; {hint}" if hint else "")
