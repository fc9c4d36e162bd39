"""The login of an existing cluster an experiment runs on (``cluster: {use: NAME}``),
checked before anything starts: when casslab knows the cluster (its state is under
``$CASSLAB_HOME/clusters``) and it logs in with the password in an environment variable
(``casslab attach --password-env VAR``), that variable must be set now, for ``plan`` and
``run --dry-run`` as for ``run``. Pure but for reading the cluster's state file."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from casslab.cluster import external_or_none, state
from casslab.errors import ClusterError
from casslab.load.credentials import password_env_problem


def used_cluster_problems(data: Mapping[str, Any]) -> list[str]:
    """The problem of an unset password variable of the cluster ``cluster.use`` names (none
    when the file names no cluster, or one casslab does not know here)."""
    cluster = data.get("cluster")
    name = cluster.get("use") if isinstance(cluster, Mapping) else None
    if not isinstance(name, str) or not state.state_file(name).is_file():
        return []
    try:
        external = external_or_none(state.load(name))
    except ClusterError as error:
        return [f"cluster.use: {error}"]
    variable = None if external is None else external.access.password_env
    if variable is None or password_env_problem(variable) is None:
        return []
    return [
        f"cluster.use: cluster {name!r} logs in with the password in the environment "
        f"variable {variable} (its --password-env), which is not set; set it first "
        f"(e.g. `read -rs {variable} && export {variable}`)"
    ]
