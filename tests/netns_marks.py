"""The marks of a test module that starts nodes in network namespaces with cgroups."""

from __future__ import annotations

import os
import shutil

import pytest

NEEDS_NETNS = [
    pytest.mark.skipif(os.geteuid() != 0, reason="namespaces and cgroups need root"),
    pytest.mark.skipif(
        not (shutil.which("ip") and shutil.which("nsenter")), reason="needs ip and nsenter"
    ),
]
"""``pytestmark`` entries of such a module (make test installs ip and nsenter)."""
