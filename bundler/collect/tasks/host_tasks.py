"""Host collectors as tasks: connect, sysinfo (with the clock), the plan's steps, then logs.

Per host: the connection first (its outcome is the host's trust decision),
then the clock and the host's facts in one session (the clock's UTC offset
reads naive log times), the plan's steps for the host's role, and logs last
(the slowest, so a timeout there starves nothing). Every task of a host waits for the connection; if
it failed, they are settled ``skipped`` with the reason, and nothing is
taken from that host. The connection closes when its last task is done.

Every collector is registered up front (the manifest lists them in plan order, and
the progress line knows the total), but a remote host's tasks are queued only when
its connection has been tried: at 1,000 hosts, queueing all 10,000 before the first
runs held ~6 MB of tasks for the whole collection. A host whose connect never runs
or is abandoned settles its other collectors with it.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple

from schemas import CollectorStatus

from ..budget import Budget
from ..context import HostState, RunContext
from ..errors import CollectError, HostKeyChanged, HostKeyRefused
from ..plan import CommandStep, FileStep, LogStep
from ..recorder import CollectorRecord
from ..scheduler import Task
from . import host_steps
from .host_steps import HostFn

if TYPE_CHECKING:
    from ..transports.sshconfig import SshEndpoint


def schedule_host(
    ctx: RunContext,
    state: HostState,
    endpoint: SshEndpoint | None,
    steps: Sequence[CommandStep | FileStep],
    log_steps: Sequence[LogStep],
) -> None:
    queue = _HostQueue(ctx, state, steps, log_steps)
    if endpoint is None:  # this machine: nothing to connect to
        queue.register()
        queue.release()
    else:
        connect = ctx.recorder.register(
            state.collector_id("connect"), state.kind, state.target.alias
        )
        queue.register()  # after the connect: the manifest lists collectors in this order
        _schedule_connect(ctx, state, endpoint, connect, queue)
    ctx.scheduler.seal(queue.connect_group)
    ctx.scheduler.on_drained(queue.host_group, lambda: _close(state))
    ctx.scheduler.seal(queue.host_group)


def _close(state: HostState) -> None:
    with state.lock:
        runner, state.runner = state.runner, None
        if state.unavailable is None:
            state.unavailable = "connection closed"
    if runner is not None:
        runner.close()


class _Collector(NamedTuple):
    """One collector of a host after its connection, in queue order."""

    name: str
    fn: HostFn
    order: int
    after: tuple[str, ...]
    extra_groups: tuple[str, ...] = ()
    step: str | None = None
    bound: dict[str, str] | None = None
    timeout_s: float | None = None


@dataclass(eq=False, slots=True)
class _HostQueue:
    """A host's collectors after its connection: registered now, queued once, or settled unrun.

    ``release`` (the connection was tried) and ``settle`` (it never ran, or was
    abandoned) race only when the watchdog or the deadline abandons a connect that
    is returning; whichever comes first decides, under ``_lock``.
    """

    ctx: RunContext
    state: HostState
    steps: Sequence[CommandStep | FileStep]
    log_steps: Sequence[LogStep]
    records: list[CollectorRecord] = field(default_factory=list)
    """Registered and not yet queued or settled; emptied by whichever decides first."""
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def host_group(self) -> str:
        return f"host:{self.state.target.alias}"

    @property
    def connect_group(self) -> str:
        return f"connect:{self.state.target.alias}"

    @property
    def facts_group(self) -> str:
        return f"facts:{self.state.target.alias}"

    def collectors(self) -> Iterator[_Collector]:
        ready = (self.connect_group,)
        yield _Collector("sysinfo", host_steps.sysinfo, 1, ready, (self.facts_group,))
        for number, step in enumerate(self.steps):
            yield _Collector(
                step.id,
                host_steps.step_fn(step),
                10 + number,
                ready,
                step=step.id,
                timeout_s=step.timeout_s,
            )
        for log_step in self.log_steps:
            for index in range(len(self.state.target.logs)):
                log_index = f"{index:02d}"
                yield _Collector(
                    f"{log_step.id}.{log_index}",
                    host_steps.log_fn(log_step, index),
                    1000 + index,
                    (self.connect_group, self.facts_group),  # --since reads the host's offset
                    step=log_step.id,
                    bound={"log_index": log_index},
                    timeout_s=log_step.timeout_s,
                )

    def register(self) -> None:
        state, recorder = self.state, self.ctx.recorder
        self.records = [
            recorder.register(
                state.collector_id(c.name),
                state.kind,
                state.target.alias,
                step=c.step,
                host=state.target.alias,
                bound=c.bound,
            )
            for c in self.collectors()
        ]

    def _decide(self) -> list[CollectorRecord]:
        with self._lock:
            records, self.records = self.records, []
            return records

    def release(self) -> None:
        """Queue the host's collectors (from the connect task, before it finishes)."""
        records = self._decide()
        if not records:
            return  # settled already, or a host with no collectors after its connect
        ctx, state = self.ctx, self.state  # a failed connect's tasks skip themselves when run
        host_group = self.host_group
        for spec, record in zip(self.collectors(), records, strict=True):
            collector = _HostCollector(ctx, state, spec.fn, record)
            ctx.scheduler.add(
                Task(
                    key=record.id,
                    run=collector.run,
                    timeout_s=spec.timeout_s or ctx.settings.timeout_s,
                    lane=host_group,  # one string for all of a host's tasks
                    priority=(state.target.order, spec.order),
                    groups=(host_group, *spec.extra_groups),
                    after=spec.after,
                    on_skip=collector.skip,
                    on_abandon=collector.abandon,
                )
            )
        self.ctx.scheduler.seal(self.facts_group)

    def settle(self, note: str, status: CollectorStatus) -> None:
        """Settle the host's collectors unrun (its connect never ran or was abandoned)."""
        self._skip(self._decide(), note, status)
        self.ctx.scheduler.seal(self.facts_group)

    def _skip(self, records: list[CollectorRecord], note: str, status: CollectorStatus) -> None:
        for record in records:
            self.ctx.recorder.skip(record, note, status)


def _schedule_connect(
    ctx: RunContext,
    state: HostState,
    endpoint: SshEndpoint,
    record: CollectorRecord,
    queue: _HostQueue,
) -> None:
    def run(budget: Budget) -> None:
        try:
            _connect(ctx, state, endpoint, record, budget)
        finally:
            queue.release()

    def skip(note: str, status: CollectorStatus) -> None:
        ctx.recorder.skip(record, note, status)
        queue.settle(note, status)

    def abandon(status: CollectorStatus, note: str) -> None:
        state.unavailable = f"connection {status.value}"
        ctx.recorder.abandon(record, status, note)
        if ctx.scheduler.stopped:  # deadline or Ctrl-C: as the tasks still waiting are
            waiting = status if status is CollectorStatus.INTERRUPTED else CollectorStatus.SKIPPED
            queue.settle(f"not run: {note}", waiting)
        else:  # the watchdog, or an internal error: as if the connection had failed
            queue.settle(f"not run: {state.unavailable}", CollectorStatus.SKIPPED)

    ctx.scheduler.add(
        Task(
            key=record.id,
            run=run,
            timeout_s=ctx.settings.timeout_s,
            lane=queue.host_group,
            priority=(state.target.order, 0),
            groups=(queue.host_group, queue.connect_group),
            on_skip=skip,
            on_abandon=abandon,
        )
    )


def _connect(
    ctx: RunContext,
    state: HostState,
    endpoint: SshEndpoint,
    record: CollectorRecord,
    budget: Budget,
) -> None:
    assert ctx.connector is not None
    ctx.recorder.started(record)
    try:
        connection = ctx.connector.connect(endpoint, budget)
    except CollectError as exc:
        state.unavailable = f"connection {exc.status.value} ({exc.error_class})"
        if isinstance(exc, HostKeyRefused):
            ctx.note(_refusal_note(state, exc))
        ctx.recorder.finish(record, error=exc)
        return
    verdict = connection.verdict
    note = None
    if verdict.trusted_on_first_use:
        note = "new host key trusted on first use (--accept-new-host-keys)"
        ctx.note(
            f"{state.target.alias} ({state.target.address}): trusted new host key "
            f"{verdict.fingerprint} and added it to known_hosts"
        )
    if ctx.recorder.finish(record, note=note):
        state.runner = connection.host
        state.fingerprint, state.trusted_on_first_use = (
            verdict.fingerprint,
            verdict.trusted_on_first_use,
        )
    else:
        connection.host.close()


def _refusal_note(state: HostState, exc: HostKeyRefused) -> str:
    """For the person at the terminal (never the manifest): the key to verify out of band."""
    what = "changed" if isinstance(exc, HostKeyChanged) else "unknown"
    return (
        f"{state.target.alias} ({state.target.address}): refused {what} host key "
        f"{exc.key_type} {exc.fingerprint}"
    )


@dataclass(eq=False, slots=True)
class _HostCollector:
    """One queued collector of a host: what its task runs, and how it is settled unrun.

    An object with three methods rather than three closures: a host's tasks are many
    (ten or more), and closures cost their cells and function objects each.
    """

    ctx: RunContext
    state: HostState
    fn: HostFn
    record: CollectorRecord

    def run(self, budget: Budget) -> None:
        ctx, state, record = self.ctx, self.state, self.record
        if state.runner is None:
            reason = state.unavailable or "host not connected"
            ctx.recorder.skip(record, f"not run: {reason}", CollectorStatus.SKIPPED)
            return
        ctx.recorder.started(record)
        try:
            produced = self.fn(ctx, state, budget, record)
        except CollectError as exc:
            ctx.recorder.finish(record, error=exc)
            return
        kept = ctx.recorder.finish(
            record, members=produced.members, error=produced.error, note=produced.note
        )
        if kept and produced.on_kept is not None:
            produced.on_kept()

    def skip(self, note: str, status: CollectorStatus) -> None:
        self.ctx.recorder.skip(self.record, note, status)

    def abandon(self, status: CollectorStatus, note: str) -> None:
        self.ctx.recorder.abandon(self.record, status, note)
