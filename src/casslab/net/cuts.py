"""Cutting a topology's links and healing them: which links a target names (a datacenter:
every link touching it; ``dc1-dc3``: that link), and the keeper told to cut or heal them.
What ``casslab net partition|heal`` and the ``partition`` fault do, given the keeper's
directory by the cluster's links capability (:func:`casslab.cluster.capabilities.links_of`)."""

from __future__ import annotations

from pathlib import Path

from casslab.errors import ConfigError


def link_name(pair: str, known: list[str]) -> str:
    first, sep, second = pair.partition("-")
    name = "-".join(sorted((first, second))) if sep else pair
    if name not in known:
        raise ConfigError(f"link {pair!r}: this cluster's links are {', '.join(known)}")
    return name


def chosen_links(directory: Path, target: str | None) -> list[str]:
    """The links ``target`` names (None: every link)."""
    from casslab.net import keeper

    known = [h.name for h in keeper.health(directory)]
    if target is None:
        return known
    if "-" in target:
        return [link_name(target, known)]
    chosen = [n for n in known if target in n.split("-")]
    if not chosen:
        raise ConfigError(
            f"datacenter {target!r}: not in this cluster's links ({', '.join(known)})"
        )
    return chosen


def set_cut(directory: Path, names: list[str], *, cut: bool) -> None:
    """Cut (or heal) the links ``names``."""
    from casslab.net import keeper

    for name in names:
        keeper.set_link(directory, name, partitioned=cut)
