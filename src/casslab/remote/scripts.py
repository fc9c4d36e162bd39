"""The small fixed shell programs :class:`casslab.remote.ssh.RemoteHost` runs on a host,
and the argument lists that call them. Pure.

Every script is a constant; what varies (paths, PIDs, the user's command) is passed as
positional arguments (``sh -c SCRIPT NAME ARG...``) and the whole argument list is
quoted with :func:`shlex.join`, so no user value is ever parsed as shell text.
Environment variables for a spawned process travel on its standard input, so neither
they nor anything else secret shows in ``ps``.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping, Sequence

from casslab.errors import ConfigError

# Runs the command in its own session (so its process group can be killed as one) and
# first prints that group's id, the shell's PID, which the command then takes by exec.
GROUP_SCRIPT = 'echo "$$"; exec "$@"'

# Detaches the command (own session, survives the connection, output appended to the log)
# and prints its PID. Reads KEY=VALUE lines from stdin first and exports them.
SPAWN_SCRIPT = """\
while IFS= read -r kv; do export "$kv"; done
cd "$1" || exit 126
log=$2
shift 2
setsid "$@" </dev/null >>"$log" 2>&1 &
echo "$!"
"""

# Exit 0 when PID $1 runs (not a zombie) and started at clock tick $2, then sends it
# signal $4 (0: none) to the process, or its group when $3 is "group"; exit 3 otherwise.
SIGNAL_SCRIPT = """\
pid=$1; ticks=$2; target=$3; sig=$4
stat=$(cat "/proc/$pid/stat" 2>/dev/null) || exit 3
set -- ${stat##*) }
[ "$1" != Z ] || exit 3
shift 19
[ "$1" = "$ticks" ] || exit 3
[ "$sig" = 0 ] && exit 0
[ "$target" = group ] && pid="-$pid"
kill "-$sig" "$pid" || exit 3
"""

# Prints the sha256 of $1; exit 3 when it is absent.
SHA256_SCRIPT = '[ -e "$1" ] || exit 3; sha256sum -- "$1"'

# Prints /proc/$1/stat's start time (field 22), waiting briefly for it to appear.
TICKS_SCRIPT = """\
for _ in 1 2 3 4 5 6 7 8 9 10; do
  stat=$(cat "/proc/$1/stat" 2>/dev/null) && break
  sleep 0.05
done
[ -n "$stat" ] || exit 3
set -- ${stat##*) }
[ "$1" != Z ] || exit 3
shift 19
echo "$1"
"""

# Reads KEY=VALUE lines from stdin and exports them, then runs the command (by exec: its
# PID, and process group, stay the caller's). When $1 is not empty, it also exports the
# variable $1 set to the PID of the nearest ancestor named sshd* (this SSH session's
# server process, gone when the connection is), or leaves it unset when there is none.
# When $2 is not empty, the command's standard error is appended to that file.
ENV_SCRIPT = """\
while IFS= read -r kv; do export "$kv"; done
var=$1
err=$2
shift 2
if [ -n "$var" ]; then
  p=$$
  while stat=$(cat "/proc/$p/stat" 2>/dev/null); do
    read -r _ p _ <<EOF
${stat##*) }
EOF
    [ "$p" -gt 1 ] 2>/dev/null || break
    case $(cat "/proc/$p/comm" 2>/dev/null) in
      sshd*) export "$var=$p"; break ;;
    esac
  done
fi
[ -z "$err" ] || exec "$@" 2>>"$err"
exec "$@"
"""

NOT_THERE = 3  # the scripts' exit code for "no such process / file"

_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def command_line(argv: Sequence[str]) -> str:
    """The one place an argument list becomes the text sshd runs: quoted word by word."""
    if not argv:
        raise ConfigError("a remote command needs at least a program name; got []")
    return shlex.join(argv)


def grouped(argv: Sequence[str]) -> list[str]:
    """``argv`` in a new session whose group id is printed on the first output line."""
    return ["setsid", "-w", "sh", "-c", GROUP_SCRIPT, "casslab-run", *argv]


def spawned(argv: Sequence[str], *, log_path: str, cwd: str | None) -> list[str]:
    return ["sh", "-c", SPAWN_SCRIPT, "casslab-spawn", cwd or ".", log_path, *argv]


def with_env(
    argv: Sequence[str], session_pid_env: str | None = None, stderr_path: str | None = None
) -> list[str]:
    """``argv`` run by :data:`ENV_SCRIPT`: the environment comes on standard input
    (:func:`env_lines`), ``session_pid_env`` (if any) names the variable that gets the PID
    of the SSH session's sshd, ``stderr_path`` (if any) the file its stderr goes to."""
    if session_pid_env is not None and not _ENV_NAME.fullmatch(session_pid_env):
        raise ConfigError(
            f"environment variable name {session_pid_env!r}: use letters, digits and _"
        )
    env_name = session_pid_env or ""
    return ["sh", "-c", ENV_SCRIPT, "casslab-env", env_name, stderr_path or "", *argv]


def env_lines(env: Mapping[str, str]) -> bytes:
    """``env`` as the KEY=VALUE lines :data:`SPAWN_SCRIPT` reads."""
    lines = []
    for name, value in env.items():
        if not _ENV_NAME.fullmatch(name):
            raise ConfigError(f"environment variable name {name!r}: use letters, digits and _")
        if "\n" in value or "\0" in value:
            raise ConfigError(f"environment variable {name}: its value cannot hold a newline")
        lines.append(f"{name}={value}\n")
    return "".join(lines).encode()


def signal_argv(pid: int, start_ticks: int, sig: int, *, group: bool) -> list[str]:
    target = "group" if group else "process"
    return [
        "sh",
        "-c",
        SIGNAL_SCRIPT,
        "casslab-signal",
        str(pid),
        str(start_ticks),
        target,
        str(sig),
    ]


def parse_start_ticks(stat: str) -> int:
    """Field 22 of a ``/proc/<pid>/stat`` line (the command name, field 2, may hold
    spaces and parentheses: fields are counted after its last ``)``)."""
    rest = stat.rsplit(")", 1)[-1].split()
    return int(rest[19])
