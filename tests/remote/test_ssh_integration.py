"""Real SSH: a lab of two namespaced hosts, each a real OpenSSH server; commands, detached
processes, signals, copies, streams, and each connection error with its fix."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from casslab import pids
from casslab.errors import (
    AuthenticationRefusedError,
    ChangedHostKeyError,
    HostUnreachableError,
    RemoteCommandError,
    UnknownHostKeyError,
)
from casslab.remote.inventory import Inventory, load_inventory
from casslab.remote.ssh import RemoteHost
from ssh_testbed import SshLab, missing_tools, namespace_pids, remove_leftovers

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(missing_tools() is not None, reason=str(missing_tools())),
]


@pytest.fixture(scope="module")
def lab() -> Iterator[SshLab]:
    with SshLab(2) as made:
        yield made


@pytest.fixture(scope="module")
def inventory(lab: SshLab) -> Inventory:
    return load_inventory(lab.inventory())


@pytest.fixture(scope="module")
def host(lab: SshLab, inventory: Inventory) -> Iterator[RemoteHost]:
    with RemoteHost.connect(inventory.hosts[0], inventory) as connected:
        yield connected


def test_a_command_runs_in_the_hosts_namespace_with_its_output(
    host: RemoteHost, lab: SshLab
) -> None:
    result = host.run(
        ["sh", "-c", 'echo "$1"; echo oops >&2; ip -4 -o addr show eth0', "x", "a b;$c"]
    )
    lines = result.stdout.splitlines()
    assert lines[0] == "a b;$c"  # quoted word by word: no shell saw it
    assert f"{lab.hosts[0].address}/28" in lines[1]
    assert (result.exit_code, result.stderr) == (0, "oops\n")


def test_a_failing_command_names_the_command_the_code_and_stderr(host: RemoteHost) -> None:
    with pytest.raises(RemoteCommandError) as caught:
        host.run(["sh", "-c", "echo broken >&2; exit 7"])
    assert caught.value.exit_code == 7
    assert "exited with 7" in str(caught.value)
    assert "broken" in str(caught.value)
    assert host.run(["false"], check=False).exit_code == 1


def test_a_command_past_its_deadline_is_killed_with_its_group(
    host: RemoteHost, lab: SshLab
) -> None:
    marker = "casslab-deadline-7411"
    with pytest.raises(RemoteCommandError, match="ran past its 1 s limit"):
        host.run(["sh", "-c", f"sleep 300 & sleep 301; echo {marker}"], timeout_s=1.0)
    time.sleep(0.3)
    left = [_cmdline(p) for p in namespace_pids(lab.hosts[0].namespace)]
    assert not any("sleep 30" in c for c in left), left


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def test_spawn_detaches_with_env_and_signal_ends_its_group(
    host: RemoteHost, lab: SshLab, tmp_path: Path
) -> None:
    log = str(Path(lab.hosts[0].base_dir) / "spawn.log")
    proc = host.spawn(
        ["sh", "-c", 'echo "start $CASSLAB_SECRET_X"; sleep 120 & wait'],
        log_path=log,
        cwd=lab.hosts[0].base_dir,
        env={"CASSLAB_SECRET_X": "s3cret value"},
    )
    assert proc.host == lab.hosts[0].address
    assert host.alive(proc)
    assert proc.pid in namespace_pids(lab.hosts[0].namespace)
    # a session leader, its group its own, and the secret not on any command line
    stat = Path(f"/proc/{proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
    assert int(stat[3]) == proc.pid == int(stat[2])  # pgrp, session
    assert not any("s3cret" in _cmdline(p) for p in namespace_pids(lab.hosts[0].namespace))
    time.sleep(0.2)
    assert host.read_text(log).startswith("start s3cret value")
    host.signal(proc, signal.SIGTERM)
    deadline = time.monotonic() + 10
    while host.alive(proc) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not host.alive(proc)
    assert not any("sleep 120" in _cmdline(p) for p in namespace_pids(lab.hosts[0].namespace))
    host.signal(proc, signal.SIGKILL)  # gone: left alone, no error
    recycled = proc.model_copy(update={"start_ticks": proc.start_ticks + 1})
    assert not host.alive(recycled)


def test_put_checks_the_digest_and_sha256_tells_absent_files(
    host: RemoteHost, lab: SshLab, tmp_path: Path
) -> None:
    local = tmp_path / "blob"
    local.write_bytes(os.urandom(300_000))
    remote = str(Path(lab.hosts[0].base_dir) / "blob")
    assert host.sha256(remote) is None
    host.put(local, remote)
    expected = subprocess.run(
        ["sha256sum", str(local)], capture_output=True, text=True, check=True
    ).stdout.split()[0]
    assert host.sha256(remote) == expected
    assert Path(remote).read_bytes() == local.read_bytes()
    assert not Path(remote + ".casslab-part").exists()
    host.put_bytes(b"two\nlines\n", remote)
    assert host.read_text(remote) == "two\nlines\n"
    assert host.read_text("/proc/self/stat").split()[0].isdigit()


def test_stream_yields_lines_and_kills_the_group_when_the_reader_stops(
    host: RemoteHost, lab: SshLab
) -> None:
    lines = host.stream(
        ["sh", "-c", "i=0; while true; do i=$((i+1)); echo line$i; sleep 0.05; done"]
    )
    got = [next(lines) for _ in range(3)]
    assert got == ["line1", "line2", "line3"]
    lines.close()
    time.sleep(0.3)
    assert not any("while true" in _cmdline(p) for p in namespace_pids(lab.hosts[0].namespace))
    assert list(host.stream(["printf", "a\\nb"])) == ["a", "b"]
    with pytest.raises(RemoteCommandError, match="exited with 4"):
        list(host.stream(["sh", "-c", "echo x; exit 4"]))


def test_stream_passes_its_environment_on_stdin_never_in_ps(host: RemoteHost, lab: SshLab) -> None:
    secret = "s3cret $(touch /tmp/casslab-pwned) 'q'"
    script = 'echo "$CASSLAB_T_SECRET"; echo "$CASSLAB_T_SSHD"; echo oops >&2; sleep 0.5'
    err = Path(lab.hosts[0].base_dir, "stream.stderr")
    groups: list[int] = []
    lines = host.stream(
        ["sh", "-c", script],
        env={"CASSLAB_T_SECRET": secret},
        session_pid_env="CASSLAB_T_SSHD",
        stderr_path=str(err),
        on_group=groups.append,
    )
    assert next(lines) == secret
    sshd = int(next(lines))
    command_lines = [_cmdline(p) for p in namespace_pids(lab.hosts[0].namespace)]
    assert any(script in c for c in command_lines)  # the command runs now
    assert not any("s3cret" in c for c in command_lines)  # its secret is on no command line
    assert list(lines) == []
    assert Path(f"/proc/{sshd}/comm").read_text().startswith("sshd")
    assert sshd in namespace_pids(lab.hosts[0].namespace)
    assert len(groups) == 1
    assert groups[0] > 1
    assert not Path("/tmp/casslab-pwned").exists()
    assert err.read_text() == "oops\n"  # standard error went to the file on the host


def test_an_unreachable_host_names_address_and_port(lab: SshLab, inventory: Inventory) -> None:
    closed = inventory.hosts[0].model_copy(update={"port": 2})
    with pytest.raises(HostUnreachableError) as caught:
        RemoteHost.connect(closed, inventory, timeout_s=3.0)
    assert f"{lab.hosts[0].address} port 2" in str(caught.value)
    assert "sshd running" in str(caught.value)
    nobody = inventory.hosts[0].model_copy(update={"address": lab.spare_address})
    with pytest.raises(HostUnreachableError, match=re.escape(lab.spare_address)):
        RemoteHost.connect(nobody, inventory, timeout_s=1.0)


def test_a_wrong_key_is_refused_naming_the_user_and_key_file(
    lab: SshLab, inventory: Inventory, tmp_path: Path
) -> None:
    other = tmp_path / "other_key"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(other)], check=True)
    wrong = inventory.hosts[0].model_copy(update={"key": other})
    with pytest.raises(AuthenticationRefusedError) as caught:
        RemoteHost.connect(wrong, inventory)
    message = str(caught.value)
    assert "user root" in message
    assert str(other) in message
    assert "authorized_keys" in message
    assert "PRIVATE KEY" not in message


def _fingerprint(public_key_file: Path) -> str:
    out = subprocess.run(
        ["ssh-keygen", "-l", "-f", str(public_key_file)], capture_output=True, text=True, check=True
    )
    return out.stdout.split()[1]


def test_a_changed_host_key_is_refused_with_both_fingerprints(
    lab: SshLab, inventory: Inventory, tmp_path: Path
) -> None:
    impostor = tmp_path / "impostor"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(impostor)], check=True)
    kind, blob = impostor.with_suffix(".pub").read_text().split()[:2]
    known = tmp_path / "known_hosts"
    known.write_text(f"{lab.hosts[0].address} {kind} {blob}\n")
    changed = inventory.model_copy(update={"known_hosts": known, "trust_on_first_use": True})
    with pytest.raises(ChangedHostKeyError) as caught:
        RemoteHost.connect(inventory.hosts[0], changed)
    message = str(caught.value)
    real = lab.dir / "h1" / "ssh_host_ed25519_key.pub"
    assert _fingerprint(real) in message
    assert _fingerprint(impostor.with_suffix(".pub")) in message
    assert "possible impersonation" in message
    assert "remove the old line" in message
    assert known.read_text() == f"{lab.hosts[0].address} {kind} {blob}\n"  # not rewritten


def test_an_unknown_host_key_is_refused_unless_trusted_on_first_use(
    lab: SshLab, inventory: Inventory, tmp_path: Path
) -> None:
    known = tmp_path / "ssh" / "known_hosts"
    strict = inventory.model_copy(update={"known_hosts": known})
    with pytest.raises(UnknownHostKeyError) as caught:
        RemoteHost.connect(inventory.hosts[1], strict)
    message = str(caught.value)
    assert _fingerprint(lab.dir / "h2" / "ssh_host_ed25519_key.pub") in message
    assert str(known) in message
    assert "ssh-keyscan" in message
    assert "trust_on_first_use: true" in message
    assert not known.exists()
    tofu = strict.model_copy(update={"trust_on_first_use": True})
    with RemoteHost.connect(inventory.hosts[1], tofu) as trusted:
        assert trusted.run(["true"]).exit_code == 0
    public = (lab.dir / "h2" / "ssh_host_ed25519_key.pub").read_text().split()[:2]
    assert known.read_text() == f"{lab.hosts[1].address} {public[0]} {public[1]}\n"
    with RemoteHost.connect(inventory.hosts[1], strict) as again:  # now known
        assert again.run(["true"]).exit_code == 0


def test_the_lab_leaves_nothing_behind(tmp_path: Path) -> None:
    with SshLab(1, root=tmp_path) as small:
        namespace = small.hosts[0].namespace
        sshd = small.sshd_pids()
        assert namespace_pids(namespace)
        inventory = load_inventory(small.inventory())
        with RemoteHost.connect(inventory.hosts[0], inventory) as one:
            one.spawn(["sleep", "300"], log_path=str(Path(small.hosts[0].base_dir) / "s.log"))
    assert not Path("/run/netns", namespace).exists()
    assert not any(Path(f"/proc/{pid}").exists() for pid in sshd)
    links = subprocess.run(["ip", "-br", "link"], capture_output=True, text=True).stdout
    assert small.bridge not in links
    assert not small.dir.exists()
    assert shutil.which("ip")


def test_remove_leftovers_cleans_up_after_a_killed_lab(tmp_path: Path) -> None:
    code = (
        "import sys, time\n"
        "from pathlib import Path\n"
        "sys.path.insert(0, sys.argv[2])\n"
        "from ssh_testbed import SshLab\n"
        "lab = SshLab(1, root=Path(sys.argv[1])).__enter__()\n"
        "print(lab.lab_id, lab.hosts[0].namespace, lab.bridge, *lab.sshd_pids(), flush=True)\n"
        "time.sleep(600)\n"
    )
    child = subprocess.Popen(
        [sys.executable, "-c", code, str(tmp_path), str(Path(__file__).resolve().parents[1])],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout is not None
        lab_id, namespace, bridge, sshd = child.stdout.readline().split()
    finally:
        child.kill()
        child.wait()
    assert Path("/run/netns", namespace).exists()
    assert Path(f"/proc/{sshd}").exists()
    assert remove_leftovers(tmp_path) == [lab_id]
    assert not Path("/run/netns", namespace).exists()
    assert not pids.alive(int(sshd), None)  # gone (or a zombie its new parent reaps)
    links = subprocess.run(["ip", "-br", "link"], capture_output=True, text=True).stdout
    assert bridge not in links
    assert not (tmp_path / lab_id).exists()
    assert remove_leftovers(tmp_path) == []
