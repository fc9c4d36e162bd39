"""SIGINT, SIGTERM and SIGHUP handled as one interrupt (in this process, handlers restored)."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator

import pytest

from casslab.cli import interrupt


@pytest.fixture
def handlers() -> Iterator[None]:
    saved = {signum: signal.getsignal(signum) for signum in interrupt.SIGNALS}
    try:
        yield
    finally:
        for signum, handler in saved.items():
            signal.signal(signum, handler)


@pytest.mark.usefixtures("handlers")
def test_the_first_signal_interrupts_and_later_ones_do_not_cut_clean_up_short(
    capfd: pytest.CaptureFixture[str],
) -> None:
    # SIGHUP as a terminal leaves it: under `nohup make test` it comes ignored, and
    # install keeps an ignored signal ignored (the next test)
    signal.signal(signal.SIGHUP, signal.SIG_DFL)
    interrupt.install()
    assert interrupt.received() is None
    assert interrupt.message() == "Interrupted"
    with pytest.raises(KeyboardInterrupt):
        os.kill(os.getpid(), signal.SIGTERM)
    os.kill(os.getpid(), signal.SIGHUP)  # during clean-up: noted, not raised
    assert interrupt.received() == signal.SIGTERM
    assert interrupt.exit_status() == 128 + signal.SIGTERM
    assert interrupt.message("resume with: x") == "Interrupted by SIGTERM; resume with: x"
    assert "SIGHUP: still stopping what this command started" in capfd.readouterr().err


@pytest.mark.usefixtures("handlers")
def test_an_ignored_signal_stays_ignored() -> None:
    signal.signal(signal.SIGHUP, signal.SIG_IGN)  # as under nohup
    interrupt.install()
    assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN
    assert signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL
