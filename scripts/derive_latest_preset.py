"""Derive the ``latest`` settings preset of a Cassandra version from its source, into
``src/casslab/cluster/latest_presets.yaml``: what the release tag's
``conf/cassandra_latest.yaml`` changes against its ``conf/cassandra.yaml``, computed by
:func:`casslab.cluster.presets.latest_changes` (the same diff a distribution's files get),
with the tag and its commit as the source. Maven Central has the jars of a version, not its
``conf/``; a version derived here runs ``--preset latest`` from the cache alone.

    python scripts/derive_latest_preset.py --git-dir CLONE_OF_CASSANDRA --version 5.0.1

The clone needs the tag ``cassandra-<version>`` (Apache Cassandra's release tags); the file
is read at that tag, whatever the work tree holds.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import yaml

from casslab.cluster import presets


def _git(git_dir: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "--git-dir", str(git_dir), *args], capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        raise SystemExit(f"git {' '.join(args)} in {git_dir}: {done.stderr.strip()}")
    return done.stdout


def derive(git_dir: Path, version: str) -> dict[str, object]:
    """The preset entry of ``version``, read at its release tag in ``git_dir``."""
    tag = f"refs/tags/cassandra-{version}"
    commit = _git(git_dir, "rev-parse", f"{tag}^{{commit}}").strip()
    build = _git(git_dir, "show", f"{commit}:build.xml")
    if f'name="base.version" value="{version}"' not in build:
        raise SystemExit(f"{tag} ({commit}): build.xml's base.version is not {version}")
    texts = [
        _git(git_dir, "show", f"{commit}:conf/{name}")
        for name in (presets.DEFAULT_FILE, presets.LATEST_FILE)
    ]
    source = f"Cassandra {version}'s source, tag cassandra-{version} (commit {commit})"
    changes = presets.latest_changes(texts[0], texts[1], source=source)
    return {"source": source, "settings": changes.settings, "unset": changes.unset}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--git-dir", type=Path, required=True, help="a clone's .git")
    parser.add_argument("--version", required=True, help="X.Y.Z, 5.0 or later")
    parser.add_argument("--out", type=Path, default=presets.derived_path())
    args = parser.parse_args(argv)
    problem = presets.version_problem(presets.LATEST, args.version)
    if problem is not None:
        raise SystemExit(problem)
    git_dir = args.git_dir / ".git" if (args.git_dir / ".git").is_dir() else args.git_dir
    entries = presets.derived_entries(args.out.read_text(encoding="utf-8"))
    entries[args.version] = derive(git_dir, args.version)
    ordered = dict(sorted(entries.items(), key=lambda item: presets.version_key(item[0])))
    body = yaml.safe_dump({"versions": ordered}, sort_keys=False, width=100)
    args.out.write_text(presets.DERIVED_HEADER + body, encoding="utf-8")
    print(f"{args.out}: Cassandra {args.version}, {entries[args.version]['source']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
