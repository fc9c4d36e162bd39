"""The link keeper's process (``python -m casslab.net.keeper_process NET_DIR``): it runs
NET_DIR's links, restarts one that dies with its settings, and stops them all on SIGTERM or
when NET_DIR goes. Its decisions, files and callers' API are :mod:`casslab.net.keeper`."""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import psutil

from casslab import procgroup
from casslab.errors import ClusterError, ConfigError, StoreError
from casslab.net import wirefilter
from casslab.net.keeper import (
    ANSWER_DEADLINE_S,
    FAST_TICK_S,
    PIPELINE_GRACE_S,
    PIPELINES_FILE,
    STABLE_S,
    STATUS_FILE,
    TICK_S,
    Action,
    KeeperStatus,
    LinkPlan,
    LinkStatus,
    PipelineRecord,
    PipelineTable,
    decide,
    pipeline_command,
    plan_lock,
    read_plan,
    restart_delay_s,
    socket_path,
)
from casslab.record import Record
from casslab.store.io import atomic_write, write_record

log = logging.getLogger("casslab.net.keeper")


@dataclass
class _Pipeline:
    name: str
    process: subprocess.Popen[bytes] | None = None
    started: float = 0.0  # the leader's create time
    launched: float = 0.0  # monotonic
    applied: LinkPlan | None = None  # the settings it has, read back (None: not yet)
    failed: LinkPlan | None = None  # settings that would not apply (logged once)
    restarts: int = 0
    last_restart: float | None = None
    failures: int = 0  # ends in a row without running STABLE_S
    not_before: float = 0.0  # monotonic


class _Keeper:
    def __init__(self, net_dir: Path, realtime: bool) -> None:
        self.net_dir, self.realtime, self.stopping = net_dir, realtime, False
        self.plan = read_plan(net_dir)
        self.pipes = {link.name: _Pipeline(link.name) for link in self.plan.links}
        self.started = psutil.Process().create_time()
        self.written: dict[str, Record] = {}

    def desired(self, name: str) -> LinkPlan:
        return next(link for link in self.plan.links if link.name == name)

    def reload(self) -> None:
        """links.json's settings for the links kept (a link added later is not kept)."""
        fresh = {link.name: link for link in read_plan(self.net_dir).links}
        links = tuple(fresh.get(link.name, link) for link in self.plan.links)
        self.plan = self.plan.model_copy(update={"links": links})

    def tick(self) -> None:
        self.reload()
        for name, pipe in self.pipes.items():
            action = decide(
                running=None if pipe.process is None else pipe.process.poll() is None,
                applied=self.desired(name) in (pipe.applied, pipe.failed),
                now=time.monotonic(),
                not_before=pipe.not_before,
            )
            if action is Action.LAUNCH:
                self.launch(pipe)
            elif action is Action.RESTART:
                self.ended(pipe)
            elif action is Action.APPLY:
                self.apply(pipe)
        self.write_state()

    def launch(self, pipe: _Pipeline) -> None:
        plan, sock = self.desired(pipe.name), socket_path(self.net_dir, pipe.name)
        rcfile = self.net_dir / f"{pipe.name}.rc"
        atomic_write(rcfile, "\n".join(wirefilter.commands(plan.link, plan.partitioned)) + "\n")
        sock.unlink(missing_ok=True)  # a killed wirefilter leaves it, and bind would fail
        command = pipeline_command(plan, sock, self.plan.netns, self.realtime, rcfile)
        pipe.applied, pipe.failed, pipe.launched = None, None, time.monotonic()
        if pipe.failures:  # it ran before
            pipe.restarts, pipe.last_restart = pipe.restarts + 1, time.time()
        try:
            pipe.process, pipe.started = wirefilter.launch(command)
        except OSError as error:
            log.error("link %s: cannot run %s: %s", pipe.name, " ".join(command), error)
            pipe.failures += 1
            pipe.not_before = time.monotonic() + max(1.0, restart_delay_s(pipe.failures))
            return
        self.write_state()
        what = f"restart {pipe.restarts}" if pipe.failures else "start"
        log.info("link %s: %s, pgid %d: %s", pipe.name, what, pipe.process.pid, " ".join(command))

    def ended(self, pipe: _Pipeline) -> None:
        assert pipe.process is not None
        process, lived = pipe.process, time.monotonic() - pipe.launched
        wirefilter.stop_pipeline(process.pid, grace_s=1.0)  # what is left of it
        socket_path(self.net_dir, pipe.name).unlink(missing_ok=True)
        pipe.failures = 1 if pipe.applied is not None and lived >= STABLE_S else pipe.failures + 1
        delay = restart_delay_s(pipe.failures)
        pipe.process, pipe.not_before = None, time.monotonic() + delay
        log.warning(
            "link %s: pipeline (pgid %d) ended with status %s after %.1f s; restarting %s",
            *(pipe.name, process.pid, process.returncode, lived),
            "now" if delay == 0 else f"in {delay:g} s",
        )
        if delay == 0:
            self.launch(pipe)

    def apply(self, pipe: _Pipeline) -> None:
        try:
            with plan_lock(self.net_dir):
                self.reload()
                wanted = self.desired(pipe.name)
                sock = socket_path(self.net_dir, pipe.name)
                wirefilter.apply(sock, wanted.link, wanted.partitioned, timeout_s=1.0)
        except (ClusterError, StoreError) as error:
            if pipe.applied is not None:  # it took settings before: log this one once
                log.error("link %s: settings not applied: %s", pipe.name, error)
                pipe.failed = self.desired(pipe.name)
            elif time.monotonic() - pipe.launched > ANSWER_DEADLINE_S and pipe.process:
                why = f"not set up within {ANSWER_DEADLINE_S:g} s ({error}); killing it"
                log.error("link %s: %s to restart it", pipe.name, why)
                procgroup.signal_group(pipe.process.pid, signal.SIGKILL)
            return
        pipe.applied = wanted
        set_to = "; ".join(wirefilter.commands(wanted.link, wanted.partitioned))
        log.info("link %s: set and read back: %s", pipe.name, set_to)

    def write_state(self) -> None:
        """pipelines.json and keeper-status.json, each when it changed."""
        pipes = list(self.pipes.values())
        table = PipelineTable(
            keeper_pid=os.getpid(),
            pipelines=tuple(
                PipelineRecord(name=p.name, pgid=p.process.pid, started=p.started)
                for p in pipes
                if p.process is not None
            ),
        )
        status = KeeperStatus(
            keeper_pid=os.getpid(),
            keeper_started=self.started,
            links=tuple(
                LinkStatus(
                    name=p.name,
                    restarts=p.restarts,
                    last_restart=p.last_restart,
                    applied=p.process is not None and p.applied == self.desired(p.name),
                )
                for p in pipes
            ),
        )
        for name, record in ((PIPELINES_FILE, table), (STATUS_FILE, status)):
            if self.written.get(name) != record:
                write_record(self.net_dir / name, record)
                self.written[name] = record

    def starting(self) -> bool:
        return any(p.process is not None and p.applied is None for p in self.pipes.values())

    def stop_all(self) -> None:
        """SIGTERM every pipeline at once, then wait for each (SIGKILL after a grace)."""
        for pipe in self.pipes.values():
            if pipe.process is not None and pipe.process.poll() is None:
                procgroup.signal_group(pipe.process.pid, signal.SIGTERM)
        for pipe in self.pipes.values():
            if pipe.process is not None:
                process = pipe.process
                wirefilter.stop_pipeline(process.pid, grace_s=PIPELINE_GRACE_S)
                with contextlib.suppress(subprocess.TimeoutExpired):
                    process.wait(timeout=1.0)  # reap the leader
                socket_path(self.net_dir, pipe.name).unlink(missing_ok=True)
                pipe.process = None
                log.info("link %s: stopped (pgid %d)", pipe.name, process.pid)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m casslab.net.keeper_process NET_DIR``: keep NET_DIR's links until SIGTERM or
    SIGINT, or until NET_DIR is removed; then stop them."""
    args = list(sys.argv[1:] if argv is None else argv)
    logging.basicConfig(
        level=logging.INFO, format="%(asctime)s keeper[%(process)d] %(levelname)s %(message)s"
    )
    if len(args) != 1:
        log.error("usage: python -m casslab.net.keeper_process NET_DIR")
        return 2
    net_dir, problem = Path(args[0]), wirefilter.realtime_problem()
    if problem:
        log.warning("links at normal priority (%s): they may stall on a busy host", problem)
    try:
        keeper = _Keeper(net_dir, realtime=not problem)
    except (StoreError, ConfigError) as error:
        log.error("cannot keep the links of %s: %s", net_dir, error)
        return 1

    def on_signal(number: int, _frame: object) -> None:
        log.info("%s: stopping the links", signal.Signals(number).name)
        keeper.stopping = True

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    log.info("keeping %d link(s) of %s", len(keeper.pipes), net_dir)
    try:
        while not keeper.stopping:
            if not net_dir.is_dir():
                log.warning("%s is gone: stopping the links", net_dir)
                break
            try:
                keeper.tick()
            except (StoreError, ConfigError, OSError) as error:
                log.error("%s", error)
            time.sleep(FAST_TICK_S if keeper.starting() else TICK_S)
    finally:
        keeper.stop_all()
        with contextlib.suppress(StoreError):
            if net_dir.is_dir():
                keeper.write_state()
    return 0


if __name__ == "__main__":
    sys.exit(main())
