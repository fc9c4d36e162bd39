"""Passwords: kept in memory, masked wherever shown or stored, given to the engine through
its environment.

A password typed in a command (stress ``-mode password=``, YCSB ``-p cassandra.password=``)
lives only in the in-memory :class:`~casslab.engine_contract.workload_spec.WorkloadSpec`. What
casslab writes or shows (``--dry-run``, ``casslab plan``, ``manifest.json``, a trial's
``spec.json``, ``-graph`` revisions, the ``Running ...`` line) has it replaced by :data:`MASK`, the
text cassandra-stress itself prints. The engine reads a spec without the password: its
``connection.password_env`` names the environment variable that holds it
(:data:`ENGINE_PASSWORD_ENV`, set in the engine's environment only, which other users
cannot read). ``password-env=VAR`` (YCSB ``-p cassandra.password-env=VAR``) names a
variable of the user's own, so the password appears on no command line at all.
"""

from __future__ import annotations

import os
import re
import shlex
from typing import Any, Final

from casslab.cqlaccess import CqlAccess
from casslab.engine_contract.workload_spec import Connection, WorkloadSpec
from casslab.errors import ConfigError
from casslab.masking import KEY_PATTERN, mask_secrets, value_end
from casslab.masking import MASK as MASK

ENGINE_PASSWORD_ENV: Final = "CASSLAB_ENGINE_PASSWORD"

# `password=`, `truststore-password=`, `keystore-password=`, YCSB `cassandra.password=`
# (never `password-env=`: a variable's name is no secret)
_IN_TOKEN = re.compile(rf"(?:^-?|(?<=[\s'\"])){KEY_PATTERN}", re.I)
_ANY = re.compile(KEY_PATTERN, re.I)
_NEEDS_QUOTES = re.compile(r"[\s'\"\\]")


def mask_token(token: str) -> str:
    """``password=secret`` -> ``password=*suppressed*``; inside a multi-option token
    (``'user=u password=a secret'``) the password runs to the token's next option
    (:func:`casslab.masking.value_end`)."""
    out, position = "", 0
    for match in _IN_TOKEN.finditer(token):
        if match.start() < position:
            continue
        end = value_end(token, match.end())
        out += token[position : match.end()] + (MASK if end > match.end() else "")
        position = end
    return out + token[position:]


def mask_text(text: str) -> str:
    """A whole command (as written in an experiment file) with every password masked.

    Text without a password key is returned unchanged; otherwise the command is split as
    the shell would, masked token by token and joined again (quoting what needs it), so
    it still parses to the same command.
    """
    if not _ANY.search(text):
        return text
    try:
        tokens = shlex.split(text)
    except ValueError:  # unbalanced quotes
        return mask_message(text)
    masked = (mask_token(t) for t in tokens)
    return " ".join(t if t and not _NEEDS_QUOTES.search(t) else shlex.quote(t) for t in masked)


def mask_message(text: str) -> str:
    """Free text (an error message quoting a command) with each password value masked
    (:func:`casslab.masking.mask_secrets`)."""
    return mask_secrets(text)


def mask_data(data: Any) -> Any:
    """JSON-like ``data`` with every string masked (:func:`mask_text`), and the value of
    every mapping key that names a password (``keystore_password``) replaced by MASK."""
    if isinstance(data, str):
        return mask_text(data)
    if isinstance(data, dict):
        return {
            key: MASK
            if isinstance(key, str) and key.lower().endswith("password") and data[key]
            else mask_data(value)
            for key, value in data.items()
        }
    if isinstance(data, list | tuple):
        return [mask_data(item) for item in data]
    return data


def masked(spec: WorkloadSpec) -> WorkloadSpec:
    """``spec`` for display: its password (if any) replaced by MASK."""
    if spec.connection.password is None:
        return spec
    connection = spec.connection.model_copy(update={"password": MASK})
    return spec.model_copy(update={"connection": connection})


def password_env_problem(name: str) -> str | None:
    """Why ``password-env=name`` cannot work here, or None."""
    if name in os.environ:
        return None
    return (
        f"password-env={name}: the environment variable {name} is not set; "
        f"set it to the password first (e.g. `read -rs {name} && export {name}`), "
        "or give password= instead"
    )


def require_password_env(connection: Connection) -> None:
    """Raise ConfigError when the connection names a password variable that is not set."""
    if connection.password_env is not None:
        problem = password_env_problem(connection.password_env)
        if problem is not None:
            raise ConfigError(problem)


def for_engine(spec: WorkloadSpec) -> tuple[WorkloadSpec, dict[str, str]]:
    """The spec as written for the engine, and what to add to the engine's environment.

    A password moves out of the spec into :data:`ENGINE_PASSWORD_ENV`; a spec that names
    its own variable (``password_env``) is sent as it is, once that variable is checked to
    be set. Raises ConfigError when it is not.
    """
    connection = spec.connection
    if connection.password is None:
        require_password_env(connection)
        return spec, {}
    sent = connection.model_copy(update={"password": None, "password_env": ENGINE_PASSWORD_ENV})
    return spec.model_copy(update={"connection": sent}), {ENGINE_PASSWORD_ENV: connection.password}


def with_cluster_access(spec: WorkloadSpec, access: CqlAccess | None) -> WorkloadSpec:
    """``spec`` whose connection also carries what its cluster asks of clients (an
    external cluster's user and password variable, CA and local datacenter): the engine
    then logs in and verifies TLS as every other client does. What the command gave
    itself (``-mode user=``, ``-transport truststore=``, ``-node datacenter=``) wins."""
    connection = connection_with_access(spec.connection, access)
    if connection is spec.connection:
        return spec
    return spec.model_copy(update={"connection": connection})


def connection_with_access(connection: Connection, access: CqlAccess | None) -> Connection:
    """``connection`` with what it lacks of ``access`` (see :func:`with_cluster_access`);
    the same object when nothing is added."""
    if access is None:
        return connection
    updates: dict[str, Any] = {}
    if connection.username is None and access.username is not None:
        updates |= {"username": access.username, "password_env": access.password_env}
    if not connection.tls and access.tls_ca_file is not None:
        updates |= {"tls": True, "tls_ca_file": str(access.tls_ca_file)}
    if connection.local_dc is None and access.local_dc is not None:
        updates["local_dc"] = access.local_dc
    if not updates:
        return connection
    return connection.model_copy(update=updates)
