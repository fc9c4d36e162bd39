"""Running iproute2's ``ip`` on this host (in a network namespace with ``-n``): the bridges,
veth pairs and namespaces of isolated clusters and of the SSH test bed are made with it."""

from __future__ import annotations

import subprocess

from casslab.errors import ClusterError


def ip(*args: str, namespace_name: str | None = None, check: bool = True) -> str:
    """Run ``ip ARGS`` (in ``namespace_name`` with ``-n``); its output, or a
    :class:`ClusterError` with ip's own message."""
    command = ["ip", *(["-n", namespace_name] if namespace_name else []), *args]
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    if check and result.returncode != 0:
        raise ClusterError(f"`{' '.join(command)}` failed: {result.stderr.strip()}")
    return result.stdout
