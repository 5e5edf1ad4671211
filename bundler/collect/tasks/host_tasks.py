"""Host collectors as tasks: connect, sysinfo (with the clock), the plan's steps, then logs.

Per host: the connection first (its outcome is the host's trust decision),
then the clock and the host's facts in one session (the clock's UTC offset
reads naive log times), the plan's steps for the host's role, and logs last
(the slowest, so a timeout there starves nothing). Every task of a host waits for the connection; if
it failed, they are settled ``skipped`` with the reason, and nothing is
taken from that host. The connection closes when its last task is done.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

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
    alias = state.target.alias
    host_group, connect_group, facts_group = f"host:{alias}", f"connect:{alias}", f"facts:{alias}"
    if endpoint is not None:
        _schedule_connect(ctx, state, endpoint, (host_group, connect_group))
    ctx.scheduler.seal(connect_group)
    ready = (connect_group,)
    add = _adder(ctx, state, host_group)
    add("sysinfo", host_steps.sysinfo, 1, ready, extra_groups=(facts_group,))
    ctx.scheduler.seal(facts_group)
    for number, step in enumerate(steps):
        add(
            step.id,
            host_steps.step_fn(step),
            10 + number,
            ready,
            step=step.id,
            timeout_s=step.timeout_s,
        )
    for log_step in log_steps:
        for index in range(len(state.target.logs)):
            log_index = f"{index:02d}"
            add(
                f"{log_step.id}.{log_index}",
                host_steps.log_fn(log_step, index),
                1000 + index,
                (connect_group, facts_group),  # --since reads naive times in the host's offset
                step=log_step.id,
                bound={"log_index": log_index},
                timeout_s=log_step.timeout_s,
            )
    ctx.scheduler.on_drained(host_group, lambda: _close(state))
    ctx.scheduler.seal(host_group)


def _close(state: HostState) -> None:
    with state.lock:
        runner, state.runner = state.runner, None
        if state.unavailable is None:
            state.unavailable = "connection closed"
    if runner is not None:
        runner.close()


def _schedule_connect(
    ctx: RunContext, state: HostState, endpoint: SshEndpoint, groups: tuple[str, ...]
) -> None:
    record = ctx.recorder.register(state.collector_id("connect"), state.kind, state.target.alias)

    def run(budget: Budget) -> None:
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

    def abandon(status: CollectorStatus, note: str) -> None:
        state.unavailable = f"connection {status.value}"
        ctx.recorder.abandon(record, status, note)

    ctx.scheduler.add(
        Task(
            key=record.id,
            run=run,
            timeout_s=ctx.settings.timeout_s,
            lane=f"host:{state.target.alias}",
            priority=(state.target.order, 0),
            groups=groups,
            on_skip=lambda note, status: ctx.recorder.skip(record, note, status),
            on_abandon=abandon,
        )
    )


def _refusal_note(state: HostState, exc: HostKeyRefused) -> str:
    """For the person at the terminal (never the manifest): the key to verify out of band."""
    what = "changed" if isinstance(exc, HostKeyChanged) else "unknown"
    return (
        f"{state.target.alias} ({state.target.address}): refused {what} host key "
        f"{exc.key_type} {exc.fingerprint}"
    )


def _adder(ctx: RunContext, state: HostState, host_group: str) -> Callable[..., None]:
    def add(
        name: str,
        fn: HostFn,
        order: int,
        after: tuple[str, ...],
        *,
        extra_groups: tuple[str, ...] = (),
        step: str | None = None,
        bound: dict[str, str] | None = None,
        timeout_s: float | None = None,
    ) -> None:
        record = ctx.recorder.register(
            state.collector_id(name),
            state.kind,
            state.target.alias,
            step=step,
            host=state.target.alias,
            bound=bound,
        )
        collector = _HostCollector(ctx, state, fn, record)
        ctx.scheduler.add(
            Task(
                key=record.id,
                run=collector.run,
                timeout_s=timeout_s or ctx.settings.timeout_s,
                lane=host_group,  # one string for all of a host's tasks
                priority=(state.target.order, order),
                groups=(host_group, *extra_groups),
                after=after,
                on_skip=collector.skip,
                on_abandon=collector.abandon,
            )
        )

    return add


@dataclass(eq=False, slots=True)
class _HostCollector:
    """One queued collector of a host: what its task runs, and how it is settled unrun.

    An object with three methods rather than three closures: every host's tasks are
    queued before the first runs (about 10,000 at 1,000 hosts), and closures cost
    their cells and function objects each.
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
