"""Real SSH to a host whose sshd has no ``Subsystem sftp`` line (sshd refuses the SFTP
subsystem, paramiko says ``Channel closed``): the deploy's host probe reads /proc/meminfo,
and files are copied and read back, all over command channels. No Cassandra is started."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path

import paramiko
import pytest

from casslab.cluster.ssh.deploy import available_memory_bytes
from casslab.errors import RemoteError
from casslab.remote.inventory import Inventory, load_inventory
from casslab.remote.ssh import RemoteHost
from ssh_testbed import SshLab, missing_tools

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(missing_tools() is not None, reason=str(missing_tools())),
]


@pytest.fixture(scope="module")
def lab() -> Iterator[SshLab]:
    with SshLab(1, sftp=False) as made:
        yield made


@pytest.fixture(scope="module")
def inventory(lab: SshLab) -> Inventory:
    return load_inventory(lab.inventory())


@pytest.fixture
def host(inventory: Inventory) -> Iterator[RemoteHost]:
    with RemoteHost.connect(inventory.hosts[0], inventory) as connected:
        yield connected


def test_the_host_really_refuses_sftp(lab: SshLab, inventory: Inventory) -> None:
    spec = inventory.hosts[0]
    client = paramiko.SSHClient()
    client.set_missing_host_key_policy(paramiko.AutoAddPolicy())
    try:
        client.connect(
            spec.address,
            username=spec.user,
            key_filename=str(spec.key),
            look_for_keys=False,
            allow_agent=False,
        )
        with pytest.raises(paramiko.SSHException, match="Channel closed"):
            client.open_sftp()
    finally:
        client.close()


def test_the_deploys_host_probe_reads_meminfo(host: RemoteHost) -> None:
    available = available_memory_bytes(host)
    assert 64 * 1024 * 1024 < available < 64 * 1024**4


def test_files_are_copied_and_read_back_without_sftp(
    host: RemoteHost, lab: SshLab, tmp_path: Path
) -> None:
    base = lab.hosts[0].base_dir
    data = bytes(range(256)) * 4096 + "é\n".encode()  # 1 MiB and a bit, every byte value
    host.put_bytes(data, f"{base}/blob")
    assert host.sha256(f"{base}/blob") == hashlib.sha256(data).hexdigest()
    local = tmp_path / "conf.txt"
    local.write_text("cluster_name: x\n")
    host.put(local, f"{base}/conf.txt")
    assert host.read_text(f"{base}/conf.txt") == "cluster_name: x\n"
    listing = host.run(["ls", "-a", base]).stdout.split()
    assert not [name for name in listing if name.endswith(".casslab-part")]


def test_a_missing_file_names_the_path_and_the_reason(host: RemoteHost, lab: SshLab) -> None:
    missing = f"{lab.hosts[0].base_dir}/nowhere.txt"
    with pytest.raises(RemoteError, match=f"cannot read {missing}: .*No such file"):
        host.read_text(missing)
