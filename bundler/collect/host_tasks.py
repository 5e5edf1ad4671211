"""Host collectors as tasks: connect, clock, sysinfo, then the plan's commands, files and logs.

Per host: the connection first (its outcome is the host's trust decision),
then the clock (its UTC offset reads naive log times), then sysinfo, the
plan's steps for the host's role, and logs last (the slowest, so a timeout
there starves nothing). Every task of a host waits for the connection; if
it failed, they are settled ``skipped`` with the reason, and nothing is
taken from that host. The connection closes when its last task is done.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from schemas import CollectorStatus
from schemas.evidence import HostSysinfo, LogSource

from .budget import Budget
from .capping import Capped
from .clock import read_clock
from .context import HostState, RunContext
from .errors import CollectError, CommandFailed, CommandNotFound, FileMissing, InvalidJSON, Skip
from .logs import CollectedLog, LogOptions, collect_file_log, collect_unit_log
from .plan import CommandStep, FileStep, LogStep
from .readonly import command_violation
from .recorder import CollectorRecord, PendingMember
from .runner import HostRunner
from .scheduler import Task
from .sysinfo import SYSINFO_MAX_BYTES, parse_sysinfo, sysinfo_script
from .templates import render, render_all, render_member
from .validate import check_json

if TYPE_CHECKING:
    from .sshconfig import SshEndpoint

SYSINFO_MEMBER = "hosts/{alias}/sysinfo.json"


@dataclass
class Produced:
    """What a host collector hands back: members, an error that still keeps them, a note."""

    members: list[PendingMember] = field(default_factory=list)
    error: CollectError | None = None
    note: str | None = None
    on_kept: Callable[[], None] | None = None


HostFn = Callable[[RunContext, HostState, Budget, CollectorRecord], Produced]


def schedule_host(
    ctx: RunContext,
    state: HostState,
    endpoint: SshEndpoint | None,
    steps: Sequence[CommandStep | FileStep],
    log_steps: Sequence[LogStep],
) -> None:
    alias = state.target.alias
    host_group, connect_group, clock_group = f"host:{alias}", f"connect:{alias}", f"clock:{alias}"
    if endpoint is not None:
        _schedule_connect(ctx, state, endpoint, (host_group, connect_group))
    ctx.scheduler.seal(connect_group)
    ready = (connect_group,)
    add = _adder(ctx, state, host_group)
    add("clock", _clock, 1, ready, extra_groups=(clock_group,))
    ctx.scheduler.seal(clock_group)
    ready = (connect_group, clock_group)
    add("sysinfo", _sysinfo, 2, ready)
    for number, step in enumerate(steps):
        add(step.id, _step_fn(step), 10 + number, ready, step=step.id, timeout_s=step.timeout_s)
    for log_step in log_steps:
        for index in range(len(state.target.logs)):
            log_index = f"{index:02d}"
            add(
                f"{log_step.id}.{log_index}",
                _log_fn(log_step, index),
                1000 + index,
                ready,
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
            ctx.recorder.finish(record, error=exc)
            return
        verdict = connection.verdict
        note = (
            f"new host key {verdict.fingerprint} trusted on first use (--accept-new-host-keys)"
            if verdict.trusted_on_first_use
            else None
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

        def run(budget: Budget) -> None:
            if state.runner is None:
                reason = state.unavailable or "host not connected"
                ctx.recorder.skip(record, f"not run: {reason}", CollectorStatus.SKIPPED)
                return
            ctx.recorder.started(record)
            try:
                produced = fn(ctx, state, budget, record)
            except CollectError as exc:
                ctx.recorder.finish(record, error=exc)
                return
            kept = ctx.recorder.finish(
                record, members=produced.members, error=produced.error, note=produced.note
            )
            if kept and produced.on_kept is not None:
                produced.on_kept()

        ctx.scheduler.add(
            Task(
                key=record.id,
                run=run,
                timeout_s=timeout_s or ctx.settings.timeout_s,
                lane=f"host:{state.target.alias}",
                priority=(state.target.order, order),
                groups=(host_group, *extra_groups),
                after=after,
                on_skip=lambda note, status: ctx.recorder.skip(record, note, status),
                on_abandon=lambda status, note: ctx.recorder.abandon(record, status, note),
            )
        )

    return add


def _runner(state: HostState) -> HostRunner:
    runner = state.runner
    if runner is None:
        raise Skip("host connection closed")
    return runner


def _clock(ctx: RunContext, state: HostState, budget: Budget, record: CollectorRecord) -> Produced:
    result = read_clock(_runner(state), budget)

    def keep() -> None:
        state.clock = result
        state.tz = result.tz

    return Produced(on_kept=keep)


def _sysinfo(
    ctx: RunContext, state: HostState, budget: Budget, record: CollectorRecord
) -> Produced:
    target = state.target
    units = [spec.unit for spec in target.logs if spec.unit]
    paths = [target.state_dir] if target.state_dir else []
    paths += sorted({posixpath.dirname(s.file) for s in target.logs if s.file} - {""})
    result = _runner(state).shell(
        sysinfo_script(units, paths), budget=budget, max_bytes=SYSINFO_MAX_BYTES
    )
    info = HostSysinfo(
        alias=target.alias, role=target.role.value, worker=target.worker, transport=target.transport
    )
    if state.clock is not None:
        info.clock, info.utc_offset = state.clock.reading, state.clock.utc_offset
    else:
        info.errors.append("clock: not read (see the clock collector)")
    parse_sysinfo(info, result.stdout.content.decode("utf-8", "replace"), units)
    member = PendingMember(
        render_member(SYSINFO_MEMBER, {"alias": target.alias}),
        info.model_dump_json(indent=2, exclude_none=True).encode(),
        "application/json",
    )

    def keep() -> None:
        state.sysinfo = info

    return Produced([member], on_kept=keep)


def _step_fn(step: CommandStep | FileStep) -> HostFn:
    def run(ctx: RunContext, state: HostState, budget: Budget, record: CollectorRecord) -> Produced:
        variables = state.target.variables()
        member = render_member(step.member, variables)
        if isinstance(step, CommandStep):
            return _command(ctx, state, step, variables, member, budget, record)
        return _file(ctx, state, step, variables, member, budget)

    return run


def _command(
    ctx: RunContext,
    state: HostState,
    step: CommandStep,
    variables: dict[str, str],
    member: str,
    budget: Budget,
    record: CollectorRecord,
) -> Produced:
    argv = render_all(step.argv, variables, what="command")
    cwd = render(step.cwd, variables, what="working directory") if step.cwd else None
    violation = command_violation(argv, ctx.program_rules)
    if violation:
        raise Skip(f"refused by the read-only guard: {violation}")
    result = _runner(state).run(argv, budget=budget, max_bytes=step.max_bytes, cwd=cwd)
    record.exit_code = result.exit_code
    if result.exit_code == 127:
        if step.missing_ok:
            raise Skip(f"{argv[0]} is not installed on this host")
        raise CommandNotFound(f"{argv[0]} is not installed on this host")
    error: CollectError | None = None
    if result.exit_code not in step.ok_exit_codes:
        error = CommandFailed(f"exit {result.exit_code}: {result.stderr_line()}".rstrip(": "))
    if not result.stdout.content and error is not None:
        return Produced(error=error)
    return _output(ctx, step, member, result.stdout, error)


def _file(
    ctx: RunContext,
    state: HostState,
    step: FileStep,
    variables: dict[str, str],
    member: str,
    budget: Budget,
) -> Produced:
    path = render(step.path, variables, what="path")
    try:
        collected = collect_file_log(
            _runner(state), path, LogOptions(step.max_bytes, None), budget, state.tz
        )
    except FileMissing as exc:
        if step.missing_ok:
            raise Skip("file not present on this host") from exc
        raise
    return _output(ctx, step, member, collected.content, None)


def _output(
    ctx: RunContext,
    step: CommandStep | FileStep,
    member: str,
    content: Capped,
    error: CollectError | None,
) -> Produced:
    """A text member, or a JSON member validated against the profile's raw model."""
    if step.media_type != "application/json":
        text = PendingMember(member, content.content, "text/plain", truncated=content.truncated)
        return Produced([text], error)
    check = check_json(content.content, step.schema_name, ctx.raw_models)
    if content.truncated or check.parse_error is not None:
        problem = "output truncated by its size cap" if content.truncated else check.parse_error
        kept = PendingMember(
            member,
            content.content,
            "text/plain",
            step.schema_name,
            content.truncated,
            False if step.schema_name else None,
        )
        return Produced([kept], error or InvalidJSON(problem or "not JSON"))
    parsed = PendingMember(
        member, content.content, "application/json", step.schema_name, valid=check.valid
    )
    return Produced([parsed], error, check.problem)


def _log_fn(log_step: LogStep, index: int) -> HostFn:
    def run(ctx: RunContext, state: HostState, budget: Budget, record: CollectorRecord) -> Produced:
        target = state.target
        spec = target.logs[index]
        options = ctx.settings.log_options(log_step.max_bytes)
        variables = {**target.variables(), "log_index": f"{index:02d}"}
        if spec.file:
            variables["log_file"] = spec.file
        member = render_member(log_step.member, variables)
        runner = _runner(state)
        collected: CollectedLog
        if spec.file:
            collected = collect_file_log(runner, spec.file, options, budget, state.tz, ctx.now())
        else:
            assert spec.unit is not None
            collected = collect_unit_log(runner, spec.unit, options, budget)
        content = collected.content
        source = LogSource(
            member=member,
            host_alias=target.alias,
            role=target.role.value,
            worker=target.worker,
            origin=collected.origin,
            lines=content.kept_lines,
            first_at=collected.first_at,
            last_at=collected.last_at,
            truncated=content.truncated,
            omitted_lines=content.omitted_lines if content.truncated else None,
            utc_offset=state.clock.utc_offset if state.clock else None,
            since=options.since,
        )
        pending = PendingMember(member, content.content, "text/plain", truncated=content.truncated)

        def keep() -> None:
            if record.entries:
                source.member = record.entries[0].path
                with state.lock:
                    state.logs.append(source)

        return Produced([pending], note=collected.note, on_kept=keep)

    return run
