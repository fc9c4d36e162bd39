"""The load session: the engine's --check asked once per distinct spec, and no cgroup
without --engine-cpus."""

from __future__ import annotations

from pathlib import Path

import pytest

from casslab.engine_contract.workload_spec import Connection, WorkloadSpec
from casslab.load import engine
from casslab.load.session import LoadClients, LoadSession
from casslab.load.stress import parse_stress


def _spec(text: str) -> WorkloadSpec:
    return parse_stress(text).to_spec(Connection(contact_points=["127.0.0.1:9042"]))


def test_a_spec_is_checked_once_per_session(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: list[str] = []
    monkeypatch.setattr(engine, "check", lambda spec, workdir: asked.append(spec.keyspace or ""))
    with LoadSession() as session:
        assert session.check(_spec("write n=10"), tmp_path / "a")
        assert not session.check(_spec("write n=10"), tmp_path / "b")  # the same spec
        assert session.check(_spec("write n=20"), tmp_path / "c")
    assert len(asked) == 2
    assert LoadSession().check(_spec("write n=10"), tmp_path / "d")  # another session asks


def test_without_engine_cpus_nothing_is_placed() -> None:
    with LoadSession() as session:
        assert session.place() is None


def test_clients_say_where_they_run() -> None:
    assert LoadClients(3).where == "3 load clients on this machine"
