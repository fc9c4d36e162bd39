"""The link keeper of one cluster: a small detached process (``python -m
casslab.net.keeper_process NET_DIR``, :mod:`casslab.net.keeper_process`) that runs the
cluster's emulated WAN links and restarts a link that dies (``docs/design/wan-links.md``;
pitfall 7: a dead link is a silent partition). This module is its callers' side, its files
and its pure decisions.

A link is one wirefilter pipeline between two persistent taps the caller made
(:func:`casslab.net.wirefilter.pipeline_argv`). NET_DIR holds ``links.json`` (the desired
state, :class:`KeeperPlan`), ``pipelines.json`` (each pipeline's group and start time, for
:func:`stop` after the keeper was killed), ``keeper-status.json`` (restarts; settings
applied and read back), ``keeper.log``, and per link ``<name>.sock`` (its management
socket) and ``<name>.rc`` (the settings it starts with, so even a restarted link never
forwards a packet unshaped). Callers use :func:`start`, :func:`stop`, :func:`set_link` and
:func:`health`; the decisions (:func:`decide`, :func:`restart_delay_s`) and the command
line (:func:`pipeline_command`) are pure.
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from enum import StrEnum
from pathlib import Path
from typing import Final, Literal

import psutil
from pydantic import Field, model_validator

from casslab import procgroup
from casslab.errors import ClusterError, StoreError
from casslab.net import wirefilter
from casslab.net.links import Link
from casslab.pids import alive
from casslab.record import Record
from casslab.store.io import read_record, write_record

SCHEMA_VERSION: Final[Literal[1]] = 1
PLAN_FILE, PIPELINES_FILE, STATUS_FILE = "links.json", "pipelines.json", "keeper-status.json"
LOG_FILE, LOCK_FILE = "keeper.log", "links.lock"
TICK_S, FAST_TICK_S = 0.2, 0.02  # the keeper's loop; fast while a pipeline starts
ANSWER_DEADLINE_S = 5.0  # a new pipeline answers on its socket and takes its settings by then
STABLE_S = 5.0  # a pipeline that ran this long worked: when it ends, it restarts at once
PIPELINE_GRACE_S, KEEPER_GRACE_S = 3.0, 8.0  # SIGTERM to SIGKILL (the keeper stops its own)
SET_WAIT_S = 3.0  # set_link waits this long for a restarting pipeline's socket
log = logging.getLogger("casslab.net.keeper")


class LinkPlan(Record):
    """One site pair's link: its settings and the taps on the two sites' bridges."""

    link: Link
    tap_a: str = Field(min_length=1, max_length=15)  # on the bridge of link.sites[0]
    tap_b: str = Field(min_length=1, max_length=15)  # on the bridge of link.sites[1]
    partitioned: bool = False

    @property
    def name(self) -> str:
        return "-".join(self.link.sites)


class KeeperPlan(Record):
    """Every link of one cluster; ``netns``: run the pipelines in that network namespace
    (``/run/netns/NAME``) instead of the keeper's own (tests)."""

    schema_version: Literal[1] = SCHEMA_VERSION
    links: tuple[LinkPlan, ...]
    netns: str | None = None

    @model_validator(mode="after")
    def _one_plan_per_pair(self) -> KeeperPlan:
        names = [plan.name for plan in self.links]
        twice = sorted({name for name in names if names.count(name) > 1})
        if twice:
            raise ValueError(f"link(s) {', '.join(twice)} given more than once")
        return self


class PipelineRecord(Record):
    name: str
    pgid: int  # the group's leader: dpipe (its commands are its children)
    started: float  # the leader's create time: with pgid, says the group is ours


class PipelineTable(Record):
    schema_version: Literal[1] = SCHEMA_VERSION
    keeper_pid: int
    pipelines: tuple[PipelineRecord, ...]


class LinkStatus(Record):
    name: str
    restarts: int = 0
    last_restart: float | None = None  # epoch s
    applied: bool = False  # runs with links.json's settings, read back


class KeeperStatus(Record):
    schema_version: Literal[1] = SCHEMA_VERSION
    keeper_pid: int
    keeper_started: float
    links: tuple[LinkStatus, ...]


class LinkHealth(LinkStatus):
    """One link as :func:`health` sees it."""

    alive: bool  # its pipeline runs
    partitioned: bool
    link: Link
    kept: bool  # a keeper runs that restarts the link when it dies


class Action(StrEnum):
    """What the keeper does next with one link."""

    LAUNCH = "launch"  # no pipeline, and its (re)start is due
    WAIT = "wait"  # no pipeline, and its restart waits (backoff)
    RESTART = "restart"  # the pipeline ended
    APPLY = "apply"  # the pipeline runs without links.json's settings
    NOTHING = "nothing"


def decide(*, running: bool | None, applied: bool, now: float, not_before: float) -> Action:
    """``running``: None when there is no pipeline (not launched, or its end handled)."""
    if running is None:
        return Action.LAUNCH if now >= not_before else Action.WAIT
    if not running:
        return Action.RESTART
    return Action.NOTHING if applied else Action.APPLY


def restart_delay_s(failures: int) -> float:
    """The wait before relaunching a pipeline that ended ``failures`` times in a row
    without running :data:`STABLE_S`: the first at once, then from 0.5 s doubling up to
    5 s (a tap that is gone must not spin the keeper)."""
    return 0.0 if failures <= 1 else min(5.0, 0.25 * 2 ** (failures - 1))


def pipeline_command(
    plan: LinkPlan, sock: Path, netns: str | None, realtime: bool, rcfile: Path | None = None
) -> list[str]:
    """One link's pipeline (see :func:`casslab.net.wirefilter.pipeline_argv`)."""
    return wirefilter.pipeline_argv(plan.tap_a, plan.tap_b, sock, netns, realtime, rcfile)


def socket_path(net_dir: Path, name: str) -> Path:
    return wirefilter.checked_socket_path(net_dir / f"{name}.sock", f"link {name}")


def write_plan(net_dir: Path, plan: KeeperPlan) -> None:
    for link in plan.links:
        socket_path(net_dir, link.name)
    write_record(net_dir / PLAN_FILE, plan)


def read_plan(net_dir: Path) -> KeeperPlan:
    return read_record(net_dir / PLAN_FILE, KeeperPlan, "link plan")


def pipelines(net_dir: Path) -> tuple[PipelineRecord, ...]:
    """The pipelines the keeper started last (pipelines.json; none before it wrote it)."""
    with contextlib.suppress(StoreError):
        return read_record(net_dir / PIPELINES_FILE, PipelineTable, "pipelines").pipelines
    return ()


def _status(net_dir: Path) -> KeeperStatus | None:
    with contextlib.suppress(StoreError):
        return read_record(net_dir / STATUS_FILE, KeeperStatus, "keeper status")
    return None


@contextlib.contextmanager
def plan_lock(net_dir: Path) -> Iterator[None]:
    """Serialise changes of links.json with their application (set_link, the keeper)."""
    with (net_dir / LOCK_FILE).open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield


def start(net_dir: Path, timeout_s: float = 10.0) -> tuple[int, float]:
    """Start the keeper of ``net_dir/links.json``; wait until every link's wirefilter
    answers with its settings applied and read back. Returns the keeper's (pid, create
    time). On failure, stops what was started and raises :class:`ClusterError` with the
    end of keeper.log."""
    wanted = {socket_path(net_dir, link.name).stem for link in read_plan(net_dir).links}
    running = [r.name for r in pipelines(net_dir) if alive(r.pgid, r.started)]
    if running:
        raise ClusterError(f"links of {net_dir} already run ({', '.join(running)}); stop them")
    for stale in (STATUS_FILE, PIPELINES_FILE):
        (net_dir / stale).unlink(missing_ok=True)
    with (net_dir / LOG_FILE).open("ab") as log_file:
        process = subprocess.Popen(
            [sys.executable, "-m", "casslab.net.keeper_process", str(net_dir)],
            stdin=subprocess.DEVNULL,
            stdout=log_file,
            stderr=log_file,
            start_new_session=True,
        )
    started = psutil.Process(process.pid).create_time()
    deadline, ready = time.monotonic() + timeout_s, set[str]()
    try:
        while not ready >= wanted:
            if process.poll() is not None:
                raise ClusterError(f"the keeper exited with status {process.returncode}")
            if time.monotonic() >= deadline:
                raise ClusterError(
                    f"link(s) {', '.join(sorted(wanted - ready))} not up with their settings "
                    f"within {timeout_s:g} s (the limit; a loaded host may need a larger one)"
                )
            time.sleep(0.05)
            status = _status(net_dir)
            if status is not None and status.keeper_pid == process.pid:
                ready = {s.name for s in status.links if s.applied}
    except ClusterError as error:
        stop(net_dir, process.pid, started)
        tail = (net_dir / LOG_FILE).read_text(errors="replace").splitlines()[-20:]
        raise ClusterError(
            f"start the link keeper of {net_dir}: {error}; {net_dir / LOG_FILE} ends with:\n"
            + "\n".join(tail)
        ) from error
    return process.pid, started


def stop(net_dir: Path, pid: int | None, start_time: float | None) -> None:
    """Stop the keeper (SIGTERM: it stops its pipelines; SIGKILL after
    :data:`KEEPER_GRACE_S`), then every pipeline of ``pipelines.json`` still running
    (the keeper was killed), by PID + start time; remove the sockets. Idempotent. With
    ``pid`` None, the keeper named in keeper-status.json (if it still runs) is stopped."""
    status = _status(net_dir) if pid is None and net_dir.is_dir() else None
    if status is not None:
        pid, start_time = status.keeper_pid, status.keeper_started
    if pid is not None and alive(pid, start_time):
        procgroup.stop_group(pid, lambda: alive(pid, start_time), grace_s=KEEPER_GRACE_S)
    if pid is not None:
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)  # our child: no zombie left
    if not net_dir.is_dir():
        return
    names = set()
    for record in pipelines(net_dir):
        if alive(record.pgid, record.started):  # then the group is this pipeline's
            wirefilter.stop_pipeline(record.pgid, grace_s=PIPELINE_GRACE_S)
        names.add(record.name)
    with contextlib.suppress(StoreError):
        names.update(link.name for link in read_plan(net_dir).links)
    for name in names:
        (net_dir / f"{name}.sock").unlink(missing_ok=True)


def set_link(
    net_dir: Path, name: str, link: Link | None = None, partitioned: bool | None = None
) -> LinkPlan:
    """Change link ``name`` in links.json (its desired state: a restarted pipeline takes
    it) and set it in the running wirefilter now, read back. Returns the new plan."""
    with plan_lock(net_dir):
        plan = read_plan(net_dir)
        known = {p.name: p for p in plan.links}
        if name not in known:
            raise ClusterError(
                f"no link {name!r} in {net_dir}; its links are {', '.join(known) or 'none'}"
            )
        old = known[name]
        if link is not None and link.sites != old.link.sites:
            raise ClusterError(f"link {name}: new settings are for {'-'.join(link.sites)}")
        cut = old.partitioned if partitioned is None else partitioned
        new = old.model_copy(update={"link": link or old.link, "partitioned": cut})
        links = tuple(new if p.name == name else p for p in plan.links)
        write_plan(net_dir, plan.model_copy(update={"links": links}))
        sock = socket_path(net_dir, name)
        try:
            wirefilter.apply(sock, new.link, new.partitioned, wait_s=SET_WAIT_S)
        except ClusterError as error:
            raise ClusterError(f"link {name}: saved, not applied now: {error}") from error
    return new


def health(net_dir: Path) -> list[LinkHealth]:
    """Every link: its pipeline running, its restarts, and its desired settings."""
    status = _status(net_dir)
    kept = status is not None and alive(status.keeper_pid, status.keeper_started)
    counts = {s.name: s for s in status.links} if status else {}
    groups = {r.name: r for r in pipelines(net_dir)}
    out: list[LinkHealth] = []
    for plan in read_plan(net_dir).links:
        record, seen = groups.get(plan.name), counts.get(plan.name, LinkStatus(name=plan.name))
        running = record is not None and alive(record.pgid, record.started)
        settings = {"partitioned": plan.partitioned, "link": plan.link, "kept": kept}
        out.append(LinkHealth(**seen.model_dump(), alive=running, **settings))
    return out
