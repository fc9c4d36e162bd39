"""How a CQL client reaches a cluster that asks for more than an address: a user whose
password lives in an environment variable (read when a client connects, never stored), a
CA that signs the nodes' certificates, and the client's local datacenter.

One record, :class:`CqlAccess`, read by every client casslab opens: the cluster package's
driver sessions, the CQL metrics sampler, the load engine's connection and ``cqlsh``. The
state file keeps the user and the variable's *name*; the password exists only in memory
of the process that connects (and in a pipe to ``cqlsh``), never in a file, a log, a
manifest or a command line.

TLS verifies each node's certificate chain against the given CA, as the load engine does
(OpenSSL without a host-name check): nodes are reached by address, and a private CA is
the trust anchor.
"""

from __future__ import annotations

import os
import re
import ssl
from pathlib import Path
from typing import Any

from pydantic import model_validator

from casslab.errors import ConfigError
from casslab.record import Record

ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class CqlAccess(Record):
    """What a client needs besides the contact points; every field optional."""

    username: str | None = None
    password_env: str | None = None  # the environment variable that holds the password
    tls_ca_file: Path | None = None  # PEM CA that signs the nodes' certificates: TLS on
    local_dc: str | None = None  # the client's datacenter (load balancing)

    @model_validator(mode="after")
    def _pairs(self) -> CqlAccess:
        if (self.username is None) != (self.password_env is None):
            raise ValueError(
                "give a user and the environment variable of its password together "
                "(--user U --password-env VAR), or neither"
            )
        if self.password_env is not None and not ENV_NAME.fullmatch(self.password_env):
            raise ValueError(
                f"password variable {self.password_env!r}: not an environment variable name; "
                "use letters, digits and _ (e.g. CASSANDRA_PASSWORD)"
            )
        return self

    @property
    def tls(self) -> bool:
        return self.tls_ca_file is not None

    def describe(self) -> str:
        """``user u (password from $VAR), TLS verified with ca.pem``; never the password."""
        parts = []
        if self.username is not None:
            parts.append(f"user {self.username} (password from ${self.password_env})")
        if self.tls_ca_file is not None:
            parts.append(f"TLS verified with {self.tls_ca_file}")
        return ", ".join(parts) or "no authentication, no TLS"


def password_problem(access: CqlAccess) -> str | None:
    """Why the password cannot be read now (its variable is not set), or None."""
    name = access.password_env
    if name is None or name in os.environ:
        return None
    return (
        f"the password of user {access.username} is read from the environment variable "
        f"{name}, which is not set; set it first (e.g. `read -rs {name} && export {name}`)"
    )


def password(access: CqlAccess) -> str | None:
    """The password, read from its variable now; a :class:`ConfigError` when unset."""
    problem = password_problem(access)
    if problem is not None:
        raise ConfigError(problem)
    return None if access.password_env is None else os.environ[access.password_env]


def ssl_context(ca_file: Path) -> ssl.SSLContext:
    """A client TLS context that verifies certificate chains against ``ca_file``; a
    :class:`ConfigError` when the file is missing or holds no PEM certificate."""
    if not ca_file.is_file():
        raise ConfigError(f"--tls-ca {ca_file}: no such file; give the PEM file of the CA")
    try:
        context = ssl.create_default_context(cafile=str(ca_file))
    except (ssl.SSLError, OSError, ValueError) as error:
        raise ConfigError(
            f"--tls-ca {ca_file}: not a readable PEM CA certificate ({error})"
        ) from error
    context.check_hostname = False  # nodes are reached by address (see the module docstring)
    context.verify_mode = ssl.CERT_REQUIRED
    return context


def driver_options(access: CqlAccess | None) -> dict[str, Any]:
    """``auth_provider`` and ``ssl_context`` for a cassandra-driver ``Cluster`` (empty
    without access); reads the password now."""
    if access is None:
        return {}
    options: dict[str, Any] = {}
    secret = password(access)
    if access.username is not None and secret is not None:
        from cassandra.auth import PlainTextAuthProvider

        options["auth_provider"] = PlainTextAuthProvider(access.username, secret)
    if access.tls_ca_file is not None:
        options["ssl_context"] = ssl_context(access.tls_ca_file)
    return options


def cqlsh_options(access: CqlAccess | None) -> tuple[list[str], dict[str, str], str | None]:
    """``cqlsh`` arguments, environment and the text of its credentials file (None: no
    user) for ``access``: ``-u U`` with the password in a credentials file the caller
    hands over through a pipe, ``--ssl`` with the CA in ``SSL_CERTFILE``."""
    if access is None:
        return [], {}, None
    args: list[str] = []
    env: dict[str, str] = {}
    credentials = None
    secret = password(access)
    if access.username is not None and secret is not None:
        args += ["-u", access.username]
        credentials = f"[plain_text_auth]\nusername = {access.username}\npassword = {secret}\n"
    if access.tls_ca_file is not None:
        ssl_context(access.tls_ca_file)  # the same checks as every other client
        args.append("--ssl")
        env |= {"SSL_CERTFILE": str(access.tls_ca_file), "SSL_VALIDATE": "true"}
    return args, env, credentials
