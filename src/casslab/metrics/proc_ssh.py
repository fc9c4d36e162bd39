"""A :class:`~casslab.metrics.proc_reader.ProcReader` for a host reached over SSH: every
reading is ONE command on the host (coreutils only, no agent installed).

The commands are constant shell programs run as ``sh -c SCRIPT NAME ARG...``; what varies
(the paths) travels as positional arguments in an argument list, which the transport
(:class:`casslab.remote.ssh.RemoteHost`) quotes word by word: no path is ever parsed as
shell text. A reading prints, for each filesystem, a ``==> statfs:PATH <==`` section with
``stat -f`` output, then ``tail -v -n +1 FILE...``: a header and the text of each file
(a file that cannot be read, as the /proc/<pid> of a process that ended, has no section:
tail names it on stderr and exits 1).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from casslab.errors import CasslabError, ConfigError
from casslab.metrics.proc_reader import HostFacts, ProcRead
from casslab.metrics.proc_text import (
    STATFS_FORMAT,
    FsUsage,
    ProcTextError,
    parse_boot_time,
    parse_getconf,
    parse_statfs,
    split_headed,
)
from casslab.metrics.source import SourceUnavailableError

NEAREST = """\
nearest() {
  d=$1
  while [ -n "$d" ] && [ ! -e "$d" ]; do
    case $d in */*) d=${d%/*} ;; *) d= ;; esac
  done
  [ -n "$d" ] || d=/
}
"""
"""Shell function: ``nearest PATH`` sets ``d`` to PATH or its nearest existing parent (a
data directory not made yet is on its parent's filesystem), without a subprocess."""

READ_SCRIPT = f"""\
{NEAREST}n=$1; shift
while [ "$n" -gt 0 ]; do
  printf '==> statfs:%s <==\\n' "$1"
  nearest "$1"
  stat -f -c '{STATFS_FORMAT}' -- "$d" 2>/dev/null
  printf '\\n'
  n=$((n - 1)); shift
done
[ "$#" -eq 0 ] || exec tail -v -n +1 -- "$@"
"""
"""``sh -c READ_SCRIPT casslab-proc N FS1..FSN FILE...``: see the module's docstring."""

FACTS_SCRIPT = "getconf CLK_TCK && getconf PAGESIZE && grep '^btime ' /proc/stat"
"""Prints the clock ticks per second, the page size, and the ``btime`` line of /proc/stat."""

DEVICE_SCRIPT = f"""\
{NEAREST}nearest "$1"
dev=$(stat -L -c %d -- "$d") || exit 3
major=$(( ((dev >> 8) & 4095) | ((dev >> 32) & ~4095) ))
minor=$(( (dev & 255) | ((dev >> 12) & ~255) ))
if [ "$major" -ne 0 ] && [ -e "/sys/dev/block/$major:$minor" ]; then
  basename "$(readlink -e "/sys/dev/block/$major:$minor")"
  exit 0
fi
source=$(df -P -- "$d" | awk 'NR == 2 {{ print $1 }}')
case $source in
  /dev/*) basename "$(readlink -e -- "$source")" ;;
esac
"""
"""Prints the kernel name of the block device holding $1 or its nearest existing parent
(nothing when it has none): from its st_dev through /sys/dev/block, or for filesystems
with an anonymous st_dev (btrfs, overlay) from the device of the mount ``df`` names, as
:func:`casslab.metrics.host.block_device_of` does here."""

TAIL_MISSING_FILE = 1  # tail's exit code when a file could not be read


class CommandResult(Protocol):
    """What a command run on the host returns (:class:`casslab.remote.ssh.RemoteResult`)."""

    @property
    def exit_code(self) -> int: ...
    @property
    def stdout(self) -> str: ...
    @property
    def stderr(self) -> str: ...


class CommandRunner(Protocol):
    """Runs an argument list on one host (:class:`casslab.remote.ssh.RemoteHost`)."""

    def run(
        self, argv: Sequence[str], *, check: bool = True, timeout_s: float = 120.0
    ) -> CommandResult: ...


def read_argv(paths: Sequence[str], fs: Sequence[str]) -> list[str]:
    """The argument list of one reading (pure: tested without a host)."""
    for p in (*paths, *fs):
        if not p or "\n" in p:
            raise ConfigError(
                f"reading {p!r} on a remote host: give a non-empty path without a newline"
            )
    return ["sh", "-c", READ_SCRIPT, "casslab-proc", str(len(fs)), *fs, *paths]


def parse_read_output(stdout: str, paths: Sequence[str], fs: Sequence[str]) -> ProcRead:
    """The :class:`ProcRead` of one reading's output (pure)."""
    sections = split_headed(stdout, [*(f"statfs:{d}" for d in fs), *paths])
    usage: dict[str, FsUsage] = {}
    for d in fs:
        text = sections.pop(f"statfs:{d}", "")
        if text.strip():
            usage[d] = parse_statfs(text)
    return ProcRead(files=sections, fs=usage)


def parse_facts(stdout: str) -> HostFacts:
    """The :class:`HostFacts` of :data:`FACTS_SCRIPT`'s output (pure)."""
    lines = stdout.splitlines()
    if len(lines) < 3:
        raise ProcTextError(f"getconf CLK_TCK, PAGESIZE and btime: {stdout!r} has not 3 lines")
    return HostFacts(
        clk_tck=parse_getconf(lines[0], "CLK_TCK"),
        page_size=parse_getconf(lines[1], "PAGESIZE"),
        boot_time_s=parse_boot_time(lines[2]),
    )


class SshProcReader:
    """Reads the /proc of the host ``runner`` runs commands on; ``name`` names the host in
    messages (e.g. ``root@10.0.0.11:22``). Each call waits at most ``timeout_s``."""

    def __init__(self, runner: CommandRunner, name: str, *, timeout_s: float = 5.0) -> None:
        self._runner = runner
        self._name = name
        self._timeout_s = timeout_s
        self._facts: HostFacts | None = None

    @property
    def where(self) -> str:
        return self._name

    def _run(self, argv: Sequence[str], what: str) -> CommandResult:
        try:
            return self._runner.run(argv, check=False, timeout_s=self._timeout_s)
        except (CasslabError, OSError, EOFError) as e:
            raise SourceUnavailableError(f"{what} on {self._name}: {e}") from e

    def facts(self) -> HostFacts:
        if self._facts is None:
            what = "reading the clock ticks, page size and boot time"
            result = self._run(["sh", "-c", FACTS_SCRIPT, "casslab-facts"], what)
            if result.exit_code != 0:
                raise SourceUnavailableError(
                    f"{what} on {self._name}: exit {result.exit_code}: {result.stderr.strip()}"
                )
            self._facts = parse_facts(result.stdout)
        return self._facts

    def block_device(self, path: str) -> str | None:
        what = f"finding the block device of {path}"
        result = self._run(["sh", "-c", DEVICE_SCRIPT, "casslab-device", path], what)
        if result.exit_code != 0:
            raise SourceUnavailableError(
                f"{what} on {self._name}: exit {result.exit_code}: {result.stderr.strip()} "
                "(does the path exist there?)"
            )
        name = result.stdout.strip()
        return name or None

    def read(
        self, paths: Sequence[str], fs: Sequence[str] = (), *, at: float | None = None
    ) -> ProcRead:
        what = f"reading {len(paths)} /proc file(s)"
        result = self._run(read_argv(paths, fs), what)
        if result.exit_code not in (0, TAIL_MISSING_FILE):
            raise SourceUnavailableError(
                f"{what} on {self._name}: exit {result.exit_code}: {result.stderr.strip()}"
            )
        try:
            return parse_read_output(result.stdout, paths, fs)
        except ProcTextError as e:
            raise SourceUnavailableError(f"{what} on {self._name}: {e}") from e
