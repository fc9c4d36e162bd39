"""The inventory file: the hosts an ``ssh`` cluster runs on, and the client hosts that run
the load engine.

```yaml
known_hosts: ~/.ssh/known_hosts   # the default; host keys are checked
trust_on_first_use: false         # true: accept an unknown host's key and record it
hosts:
  - {address: 10.0.0.11, user: root, key: ~/.ssh/id_ed25519, dc: dc1, rack: r1}
  - {address: 10.0.0.12, user: root, key: ~/.ssh/id_ed25519,
     base_dir: /data/casslab,                  # default /var/lib/casslab
     java_home: /usr/lib/jvm/java-17-openjdk-amd64,   # default: java on the host's PATH
     cassandra_home: /opt/cassandra}           # use this install; default: copy the jars
clients:
  - {address: 10.0.0.21, user: root, key: ~/.ssh/id_ed25519}
```

Relative paths (``key``, ``known_hosts``) resolve against the inventory file's folder and
``~`` expands. :func:`load_inventory` reads and checks the file; :func:`parse_inventory`
is the pure part (a mapping and the file's path in, an :class:`Inventory` out).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import Field, ValidationError

from casslab.errors import ConfigError, DocumentProblemsError, problems_message
from casslab.input_files import InputFileError, read_input
from casslab.record import Record
from casslab.remote.host_fields import TEXT_FIELDS, host_field_problems
from casslab.validation import validation_problems
from casslab.yaml_reader import parse_yaml

INVENTORY_SCHEMA_VERSION = 1
DEFAULT_KNOWN_HOSTS = "~/.ssh/known_hosts"
DEFAULT_BASE_DIR = "/var/lib/casslab"


class HostSpec(Record):
    """One host of the inventory as written (paths still as the user typed them until
    :func:`parse_inventory` resolves them)."""

    address: str = Field(min_length=1)
    user: str = Field(min_length=1)
    key: Path
    port: int = Field(default=22, ge=1, le=65535)
    dc: str = Field(default="dc1", min_length=1)
    rack: str = Field(default="rack1", min_length=1)
    base_dir: str = Field(default=DEFAULT_BASE_DIR, min_length=1)
    java_home: str | None = None
    cassandra_home: str | None = None  # an install on the host: its lib/ is used, not copied

    @property
    def label(self) -> str:
        """``user@address:port``, for messages."""
        return f"{self.user}@{self.address}:{self.port}"


class _InventoryFile(Record):
    known_hosts: Path = Path(DEFAULT_KNOWN_HOSTS)
    trust_on_first_use: bool = False
    hosts: tuple[HostSpec, ...] = ()
    clients: tuple[HostSpec, ...] = ()


class Inventory(Record):
    """A checked inventory: every path absolute, every key file present."""

    schema_version: int = INVENTORY_SCHEMA_VERSION
    path: Path
    known_hosts: Path
    trust_on_first_use: bool = False
    hosts: tuple[HostSpec, ...]
    clients: tuple[HostSpec, ...] = ()


def _resolve(path: Path, folder: Path) -> Path:
    expanded = path.expanduser()
    return expanded if expanded.is_absolute() else (folder / expanded).resolve()


def parse_inventory(data: Any, path: Path) -> Inventory:
    """Check ``data`` (the file's parsed YAML) and resolve its paths against ``path``'s
    folder. Every problem is named with its entry (``hosts[1].port``) and the fix; one
    :class:`ConfigError` lists them all."""
    subject = f"inventory {path}"
    if not isinstance(data, Mapping):
        raise ConfigError(
            f"{subject}: expected a mapping with `hosts:` (a list of {{address, user, key}})"
        )
    try:
        parsed = _InventoryFile.model_validate(data)
    except ValidationError as error:
        raise ConfigError(problems_message(subject, validation_problems(error, data))) from None
    problems: list[str] = []
    if not parsed.hosts:
        problems.append(
            "hosts: no hosts; list at least one as {address: 10.0.0.11, user: root, key: "
            "~/.ssh/id_ed25519}"
        )
    folder = path.parent
    resolved: dict[str, list[HostSpec]] = {"hosts": [], "clients": []}
    seen: dict[str, str] = {}
    for group, specs in (("hosts", parsed.hosts), ("clients", parsed.clients)):
        for index, spec in enumerate(specs):
            where = f"{group}[{index}]"
            problems += host_field_problems(spec.model_dump(include=set(TEXT_FIELDS)), where)
            key = _resolve(spec.key, folder)
            if not key.is_file():
                problems.append(
                    f"{where}.key: no key file {key} (from {str(spec.key)!r}); give the path "
                    "of the private key whose public key is in the host's authorized_keys"
                )
            if spec.address in seen:
                problems.append(
                    f"{where}.address: {spec.address} is already {seen[spec.address]}; "
                    "list each host once"
                )
            seen.setdefault(spec.address, where)
            resolved[group].append(spec.model_copy(update={"key": key}))
    if problems:
        raise ConfigError(problems_message(subject, problems))
    return Inventory(
        path=path,
        known_hosts=_resolve(parsed.known_hosts, folder),
        trust_on_first_use=parsed.trust_on_first_use,
        hosts=tuple(resolved["hosts"]),
        clients=tuple(resolved["clients"]),
    )


def load_inventory(path: Path) -> Inventory:
    """Read and check the inventory file at ``path``."""
    path = path.expanduser().resolve()
    fix = "give the path of a hosts file (see `casslab up --help`)"
    try:
        text = read_input(path, what="inventory", fix=fix)
    except InputFileError as error:
        raise ConfigError(str(error)) from None
    try:
        data = parse_yaml(text, str(path))
    except DocumentProblemsError as error:
        raise ConfigError(problems_message(f"inventory {path}", error.problems)) from None
    return parse_inventory(data, path)
