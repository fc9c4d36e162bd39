"""The SSH reader's commands and the parsing of their output: on recorded output, and by
running the very argument lists it sends through ``sh`` here (the SSH transport only
quotes them; tests/metrics/test_remote_ssh_lab.py runs them over real SSH)."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Sequence
from pathlib import Path

import pytest

from casslab.errors import ConfigError, RemoteError
from casslab.metrics.host import block_device_of
from casslab.metrics.proc_reader import HostFacts, LocalProcReader
from casslab.metrics.proc_ssh import (
    READ_SCRIPT,
    SshProcReader,
    parse_facts,
    parse_read_output,
    read_argv,
)
from casslab.metrics.proc_text import FsUsage
from casslab.metrics.source import SourceUnavailableError
from casslab.remote.ssh import RemoteResult


class ShellHere:
    """Runs an argument list here, as :class:`casslab.remote.ssh.RemoteHost` runs it on
    its host (no shell between: the list is the command)."""

    def __init__(self) -> None:
        self.calls: list[list[str]] = []

    def run(
        self, argv: Sequence[str], *, check: bool = True, timeout_s: float = 120.0
    ) -> RemoteResult:
        self.calls.append(list(argv))
        done = subprocess.run(list(argv), capture_output=True, text=True, timeout=timeout_s)
        return RemoteResult(exit_code=done.returncode, stdout=done.stdout, stderr=done.stderr)


class Unreachable:
    def run(
        self, argv: Sequence[str], *, check: bool = True, timeout_s: float = 120.0
    ) -> RemoteResult:
        raise RemoteError("host root@10.0.0.11:22: the SSH connection is closed")


def test_read_argv_passes_paths_as_arguments_never_as_shell_text() -> None:
    argv = read_argv(["/proc/stat", "/proc/1/stat"], ["/data dir/$(rm -rf x)"])
    assert argv == [
        "sh",
        "-c",
        READ_SCRIPT,
        "casslab-proc",
        "1",
        "/data dir/$(rm -rf x)",
        "/proc/stat",
        "/proc/1/stat",
    ]


@pytest.mark.parametrize("bad", ["", "/a\nb"])
def test_read_argv_refuses_a_path_the_output_could_not_name(bad: str) -> None:
    with pytest.raises(ConfigError, match="without a newline"):
        read_argv(["/proc/stat"], [bad])


def test_parse_recorded_output() -> None:
    # recorded from `sh -c READ_SCRIPT casslab-proc 1 /var/lib/x /proc/loadavg
    # /proc/4242/stat /proc/uptime` on a host where PID 4242 had ended
    out = (
        "==> statfs:/var/lib/x <==\n66053021 61716568 19538863 4096\n\n"
        "==> /proc/loadavg <==\n6.88 4.70 3.11 5/328 31173\n\n"
        "==> /proc/uptime <==\n72403.35 66967.94\n"
    )
    read = parse_read_output(
        out, ["/proc/loadavg", "/proc/4242/stat", "/proc/uptime"], ["/var/lib/x"]
    )
    assert read.files == {
        "/proc/loadavg": "6.88 4.70 3.11 5/328 31173\n",
        "/proc/uptime": "72403.35 66967.94\n",
    }
    assert read.fs == {
        "/var/lib/x": FsUsage(
            blocks=66053021, blocks_free=61716568, blocks_available=19538863, block_size=4096
        )
    }


def test_a_filesystem_stat_could_not_read_is_absent() -> None:
    out = "==> statfs:/gone <==\n\n==> /proc/uptime <==\n1.00 2.00\n"
    read = parse_read_output(out, ["/proc/uptime"], ["/gone"])
    assert read.fs == {}
    assert read.files == {"/proc/uptime": "1.00 2.00\n"}


def test_parse_facts() -> None:
    assert parse_facts("100\n4096\nbtime 1795464972\n") == HostFacts(
        clk_tck=100, page_size=4096, boot_time_s=1795464972
    )


def test_the_commands_run_by_sh_give_what_is_read_here(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b b"
    a.write_text("one\n==> not a header <==\n")
    b.write_text("no newline at the end")
    missing = str(tmp_path / "missing")
    shell = ShellHere()
    reader = SshProcReader(shell, "sh here")
    paths = [str(a), missing, str(b), "/proc/self/status"]
    not_yet = str(tmp_path / "data" / "not yet made")  # on its nearest parent's filesystem
    read = reader.read(paths, fs=[str(tmp_path), not_yet])
    assert len(shell.calls) == 1  # one command a reading
    local = LocalProcReader().read(paths, fs=[str(tmp_path), not_yet])
    assert read.files.keys() == local.files.keys() == {str(a), str(b), "/proc/self/status"}
    assert read.files[str(a)] == local.files[str(a)]
    assert read.files[str(b)] == "no newline at the end"
    assert read.fs.keys() == local.fs.keys() == {str(tmp_path), not_yet}
    assert read.fs[str(tmp_path)].block_size == os.statvfs(tmp_path).f_frsize
    assert read.fs[not_yet].blocks == read.fs[str(tmp_path)].blocks
    assert reader.facts() == LocalProcReader().facts()
    assert reader.block_device(not_yet) == block_device_of(str(tmp_path))
    assert reader.block_device(not_yet) == LocalProcReader().block_device(not_yet)


def test_an_unreachable_host_is_a_gap_naming_it() -> None:
    reader = SshProcReader(Unreachable(), "root@10.0.0.11:22")
    with pytest.raises(SourceUnavailableError, match=r"on root@10\.0\.0\.11:22: host root@"):
        reader.read(["/proc/stat"])
