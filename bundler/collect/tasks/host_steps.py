"""What each host collector does: clock and sysinfo, the plan's commands and files, logs.

Each function takes the run context, the host's state, its budget and its
record, and returns what it :class:`Produced`: members to store, an error
that still keeps them (a failed command's output is evidence too), a note,
and what to remember about the host once the outcome is settled (only then:
a collector settled as ``timeout`` meanwhile changes nothing).
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable
from dataclasses import dataclass, field

from schemas.evidence import HostSysinfo, LogSource

from ..budget import Budget
from ..capping import Capped
from ..context import HostState, RunContext
from ..errors import (
    STDERR_EXCERPT,
    CollectError,
    CommandFailed,
    CommandNotFound,
    FileMissing,
    InvalidJSON,
    Skip,
    excerpt,
    last_line,
)
from ..plan import CommandStep, FileStep, LogStep
from ..readonly import command_violation
from ..recorder import CollectorRecord, PendingMember
from ..templates import render, render_all, render_member
from ..transports.runner import STOPPED_NOTE, HostRunner, StoppedAtTimeout, failure_message
from ..validate import check_json
from .clock import read_clock
from .logs import CollectedLog, LogOptions, collect_file_log, collect_unit_log
from .sysinfo import SYSINFO_MAX_BYTES, parse_sysinfo, sysinfo_script

SYSINFO_MEMBER = "hosts/{alias}/sysinfo.json"


@dataclass
class Produced:
    """What a host collector hands back: members, an error that still keeps them, a note."""

    members: list[PendingMember] = field(default_factory=list)
    error: CollectError | None = None
    note: str | None = None
    on_kept: Callable[[], None] | None = None


HostFn = Callable[[RunContext, HostState, Budget, CollectorRecord], Produced]


def _runner(state: HostState) -> HostRunner:
    runner = state.runner
    if runner is None:
        raise Skip("host connection closed")
    return runner


def sysinfo(ctx: RunContext, state: HostState, budget: Budget, record: CollectorRecord) -> Produced:
    """The host's clock (around one round trip) and its facts, in one session."""
    target = state.target
    units = [spec.unit for spec in target.logs if spec.unit]
    paths = [target.state_dir] if target.state_dir else []
    paths += sorted({posixpath.dirname(s.file) for s in target.logs if s.file} - {""})
    clock, output, clock_error = read_clock(
        _runner(state),
        budget,
        ctx.now,
        then=sysinfo_script(units, paths),
        max_bytes=SYSINFO_MAX_BYTES,
    )
    info = HostSysinfo(
        alias=target.alias, role=target.role.value, worker=target.worker, transport=target.transport
    )
    if clock is not None:
        info.clock, info.utc_offset = clock.reading, clock.utc_offset
    else:
        info.errors.append(f"clock: {clock_error}")
    parse_sysinfo(info, output, units)
    member = PendingMember(
        render_member(SYSINFO_MEMBER, {"alias": target.alias}),
        info.model_dump_json(indent=2, exclude_none=True).encode(),
        "application/json",
    )

    def keep() -> None:
        state.sysinfo, state.clock = info, clock
        if clock is not None:
            state.tz = clock.tz

    return Produced([member], on_kept=keep)


def step_fn(step: CommandStep | FileStep) -> HostFn:
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
    try:
        result = _runner(state).run(argv, budget=budget, max_bytes=step.max_bytes, cwd=cwd)
    except StoppedAtTimeout as stopped:
        return _stopped(ctx, step, member, stopped)
    record.exit_code = result.exit_code
    if result.exit_code == 127:
        if step.missing_ok:
            raise Skip(f"{argv[0]} is not installed on this host")
        raise CommandNotFound(f"{argv[0]} is not installed on this host")
    error: CollectError | None = None
    if result.exit_code not in step.ok_exit_codes:
        why = excerpt(last_line(result.stderr), ctx.recorder.redact, STDERR_EXCERPT)
        error = CommandFailed(failure_message(result.ending, why), redacted=True)
    if not result.stdout.content and error is not None:
        return Produced(error=error)
    return _output(ctx, step, member, result.stdout, error)


def _stopped(
    ctx: RunContext, step: CommandStep, member: str, stopped: StoppedAtTimeout
) -> Produced:
    """A command stopped at its timeout: its text output so far is kept, marked truncated.

    Not a JSON document's: the part of one is not a smaller document but a broken one, and
    kept as text beside a timeout it would only be mistaken for what the command had to
    say; the collector fails as any timeout does."""
    if step.media_type == "application/json" or not stopped.partial.stdout.content:
        raise stopped
    produced = _output(ctx, step, member, stopped.partial.stdout, stopped)
    produced.note = STOPPED_NOTE
    return produced


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
    produced = _output(ctx, step, member, collected.content, None)
    produced.note = "; ".join(filter(None, (collected.note, produced.note))) or None
    return produced


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


def log_fn(log_step: LogStep, index: int) -> HostFn:
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
            collected = collect_unit_log(runner, spec.unit, options, budget, ctx.recorder.redact)
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

        return Produced([pending], collected.error, collected.note, on_kept=keep)

    return run
