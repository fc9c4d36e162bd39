"""The command line's last line of defence: an exception casslab did not expect becomes
one line, ``Error: ... (internal error; please report with this file: PATH)``, and its
stack goes to that file, never to the terminal. Secrets are masked in both."""

from __future__ import annotations

import os
import tempfile
import time
import traceback
from collections.abc import Iterable
from pathlib import Path

from casslab.masking import mask_secrets
from casslab.paths import home, private_dir


def crash_dir() -> Path:
    """Where crash reports go: ``$CASSLAB_HOME/crashes`` (owner-only)."""
    return home() / "crashes"


def write_report(error: BaseException, argv: Iterable[str], secrets: Iterable[str]) -> Path:
    """Write the stack of ``error`` and the (masked) command line to a new file; its path.
    Falls back to the temporary directory when casslab's home cannot be written."""
    known = list(secrets)
    stack = "".join(traceback.format_exception(error))
    text = mask_secrets(f"command: {' '.join(argv)}\n\n{stack}", known)
    name = f"casslab-{time.strftime('%Y%m%dT%H%M%S')}-{os.getpid()}.log"
    for folder in (crash_dir, lambda: Path(tempfile.gettempdir())):
        try:
            path = private_dir(folder()) / name
            path.write_text(text, encoding="utf-8")
            path.chmod(0o600)
            return path
        except OSError:
            continue
    return Path(os.devnull)


def message(error: BaseException, report: Path, secrets: Iterable[str]) -> str:
    """The one line the user sees for an unexpected ``error``."""
    what = str(error).strip().splitlines()[0] if str(error).strip() else ""
    what = what[:300] + ("..." if len(what) > 300 else "")
    text = f"{type(error).__name__}: {what}" if what else type(error).__name__
    return mask_secrets(f"{text} (internal error; please report with this file: {report})", secrets)
