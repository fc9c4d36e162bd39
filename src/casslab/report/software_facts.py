"""What a run ran with and on, as (label, value) rows: casslab, Cassandra, the JDK, the
engine, the git revision and the host (pure). The report's facts and the studies' gallery
pages both open with them."""

from __future__ import annotations

from casslab.store.run_records import RunManifest


def software_facts(manifest: RunManifest) -> list[tuple[str, str]]:
    """The versions and the host ``manifest`` recorded ("unknown" where it has none)."""
    host = manifest.host
    return [
        ("casslab", manifest.casslab_version),
        ("Cassandra", manifest.cassandra_version or "unknown"),
        ("JDK", manifest.jdk_version or "unknown"),
        ("engine", manifest.engine_version or "unknown"),
        ("git revision", manifest.git_revision or "unknown"),
        (
            "host",
            f"{host.hostname}: {host.cpus} CPUs, {host.memory_bytes / 2**30:.1f} GiB, "
            f"{host.os} {host.kernel}",
        ),
    ]
