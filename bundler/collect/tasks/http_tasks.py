"""HTTP steps as tasks: plain GETs, and fan-outs expanded once their parent step is done.

A fan-out waits for *every* expansion of the step it iterates, then expands
in the parent's index order, so ``{index}`` (and thus member names) is the
same for the same data. Bound values are percent-encoded into the path and
the rendered path is checked against the profile's mutating routes again.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

from schemas import CollectorKind, CollectorStatus

from ..budget import Budget
from ..context import RunContext
from ..errors import (
    EXCERPT_WINDOW,
    BundleFull,
    CollectError,
    HttpRefused,
    HttpStatusError,
    InvalidJSON,
    ResponseTooLarge,
    Skip,
    excerpt,
)
from ..plan import HttpStep
from ..readonly import path_violation
from ..recorder import CollectorRecord, PendingMember
from ..scheduler import Task
from ..templates import quote_path_value, render, render_member
from ..transports.politeness import THROTTLE_STATUSES, retry_after_seconds
from ..validate import blank_bytes, check_json, limit

if TYPE_CHECKING:
    from ..transports.http import HttpCapture

HTTP_LANE = "http"
ERROR_SNIPPET = 200
"""Characters of an error response's body quoted in the message, after redaction."""


def group(step_id: str) -> str:
    return f"http:{step_id}"


def schedule_http_steps(ctx: RunContext, steps: list[HttpStep]) -> None:
    for step in steps:
        if ctx.http is None:
            record = ctx.recorder.register(
                f"http.{step.id}", CollectorKind.HTTP, step.path, step=step.id
            )
            ctx.recorder.skip(
                record, "no control-plane URL (--server) given", CollectorStatus.SKIPPED
            )
            ctx.scheduler.seal(group(step.id))
            continue
        if step.for_each is None:
            _add_fetch(ctx, step, f"http.{step.id}", {}, 0)
            ctx.scheduler.seal(group(step.id))
        else:
            ctx.scheduler.add(
                Task(
                    key=f"expand:{step.id}",
                    run=partial(_expand, ctx, step),
                    timeout_s=ctx.settings.timeout_s,
                    lane="expand",
                    priority=(0,),
                    groups=(group(step.id),),
                    after=(group(step.for_each.step),),
                    on_skip=partial(_skip_unexpanded, ctx, step),
                )
            )


def _expand(ctx: RunContext, step: HttpStep, budget: Budget) -> None:
    assert step.for_each is not None
    parent = step.for_each.step
    parents = ctx.fanout_bindings(step.id)
    if not parents:
        record = ctx.recorder.register(
            f"http.{step.id}", CollectorKind.HTTP, step.path, step=step.id
        )
        note = "not run: run deadline reached" if budget.expired() else _unexpanded(ctx, parent)
        ctx.recorder.skip(record, note, CollectorStatus.SKIPPED)
    else:
        bindings, cut = limit(step.for_each, parents)
        assert ctx.http is not None
        ctx.http.usage.record_fanout(
            step.id, len(bindings) + cut, len(bindings), step.for_each.limit
        )
        for index, bound in enumerate(bindings):
            _add_fetch(ctx, step, f"http.{step.id}.{index:03d}", bound, index, cut_note(cut))
    ctx.scheduler.seal(group(step.id))


def _unexpanded(ctx: RunContext, parent: str) -> str:
    """Why a fan-out has nothing to expand: its parent was left out of the bundle, or gave
    no document (it failed, was skipped, or listed nothing)."""
    results = [r for r in ctx.recorder.step_results() if r.step == parent]
    if any(r.error_class == BundleFull.__name__ for r in results):
        return f"not run: {parent} was left out of the bundle ({BundleFull.__name__})"
    statuses = sorted({r.status.value for r in results})
    return f"not run: {parent} produced nothing to expand ({', '.join(statuses)})"


def cut_note(cut: int) -> str | None:
    return f"{cut} more items not fetched (fan-out limit)" if cut else None


def _skip_unexpanded(ctx: RunContext, step: HttpStep, note: str, status: CollectorStatus) -> None:
    record = ctx.recorder.register(f"http.{step.id}", CollectorKind.HTTP, step.path, step=step.id)
    ctx.recorder.skip(record, note, status)


def _add_fetch(
    ctx: RunContext,
    step: HttpStep,
    collector_id: str,
    bound: dict[str, str],
    index: int,
    note: str | None = None,
) -> None:
    record = ctx.recorder.register(
        collector_id, CollectorKind.HTTP, step.path, step=step.id, bound=bound
    )
    ctx.scheduler.add(
        Task(
            key=collector_id,
            run=lambda budget: _fetch(ctx, step, record, bound, index, budget, note),
            timeout_s=step.timeout_s or ctx.settings.timeout_s,
            lane=HTTP_LANE,
            priority=(0,),
            groups=(group(step.id),),
            on_skip=lambda n, status: ctx.recorder.skip(record, n, status),
            on_abandon=lambda status, n: ctx.recorder.abandon(record, status, n),
        )
    )


def _fetch(
    ctx: RunContext,
    step: HttpStep,
    record: CollectorRecord,
    bound: dict[str, str],
    index: int,
    budget: Budget,
    note: str | None,
) -> None:
    assert ctx.http is not None
    ctx.recorder.started(record)
    attempts = 1
    capture: HttpCapture | None = None
    try:
        variables = {name: quote_path_value(value) for name, value in bound.items()}
        path = render(step.path, variables, what="path")
        violation = path_violation(path, ctx.mutating_routes)
        if violation:
            raise Skip(f"refused by the read-only guard: {violation}")
        params = {k: render(v, bound, what="query parameter") for k, v in step.params.items()}
        record.http_path, record.http_query = path, urlencode(params)
        is_json = step.media_type == "application/json"
        capture = ctx.http.get(
            path, params, budget=budget, max_bytes=step.max_bytes, stop_when_over=is_json
        )
        attempts = capture.attempts
        record.http_status = capture.status_code
        record.content_type = capture.content_type
        member = render_member(step.member, {"index": f"{index:03d}"})
        try:
            _check_status(step, capture, ctx.recorder.redact)
        except (HttpRefused, HttpStatusError) as refused:
            answer = _error_answer(capture, member)
            ctx.recorder.finish(
                record, members=answer, error=refused, note=_waited(capture), attempts=attempts
            )
            return
        pending, error, problem, parsed = _member_for(ctx, step, capture, member)
        fanout = (
            ctx.fanout_projection(step.id, parsed)
            if parsed is not None and step.id in ctx.fanned_steps
            else None
        )
        del parsed  # gone before storing the member parses it again
    except CollectError as exc:
        made = exc.attempts if exc.attempts is not None else attempts
        ctx.recorder.finish(record, error=exc, note=_waited(capture), attempts=made)
        return
    notes = "; ".join(n for n in (problem, _waited(capture), note) if n) or None
    kept = ctx.recorder.finish(
        record, members=[pending], error=error, note=notes, attempts=attempts
    )
    # Only a document the bundle holds is expanded: one left out for lack of room
    # (BundleFull) would have its items fetched blind, each left out as well.
    if kept and fanout is not None and record.entries:
        ctx.keep_fanout(index, fanout)


def _waited(capture: HttpCapture | None) -> str | None:
    """How long the server's Retry-After held this request back, when it did.

    The status message speaks of the last answer only ("not waited for" when no
    attempt was left); this says the earlier ones were waited for.
    """
    if capture is None or not capture.waited_s:
        return None
    return (
        f"held back {capture.waited_s:.1f}s by Retry-After and retried "
        f"({capture.attempts} attempts made)"
    )


def _error_answer(capture: HttpCapture, member: str) -> list[PendingMember]:
    """What the server said with a status that is not success: kept as evidence, as text.

    The message quotes only its first 200 characters; a 5xx error page (which
    component failed, which upstream), a 429's explanation or a 401's reason is the
    evidence support reads, and ``bundler serve`` answers with it. Stored like any
    member (redacted by the sink, capped), as text: it is not the document the step
    asks for, so no normalizer reads it (its collector did not succeed). An empty
    body (a bare redirect, a 304) stores nothing.
    """
    body = capture.body
    if not body.total_bytes:
        return []
    return [PendingMember(member, body.content, "text/plain", truncated=body.truncated)]


def _check_status(step: HttpStep, capture: HttpCapture, redact: Callable[[str], str]) -> None:
    """Raise the outcome a non-2xx answer means, quoting the body redacted, then shortened.

    The body was cut to 200 characters before the recorder redacted the message: a
    token the cut went through left its head (19 of 32 characters) in the manifest,
    the evidence and on stderr, as no exact-value or keyword rule matches a part."""
    code = capture.status_code
    if 200 <= code < 300:
        return
    body = capture.body.content[: 4 * EXCERPT_WINDOW].decode("utf-8", "replace")
    snippet = excerpt(body, redact, ERROR_SNIPPET)
    detail = f"HTTP {code}" + (f": {snippet}" if snippet else "")
    # Every message below is bundler's words and redacted excerpts (redacted=True): the
    # recorder does not redact it again.
    if code == 404 and step.optional:
        raise Skip(step.absent_note or "absent on this server (HTTP 404)")
    if code in (401, 403):
        raise HttpRefused(detail, redacted=True)
    if code in THROTTLE_STATUSES and capture.retry_after is not None:
        wait = _asked(capture.retry_after, redact)
        raise HttpStatusError(
            f"{detail} (the server asked to retry after {wait}; not waited for)", redacted=True
        )
    if code == 304:  # doctor never asks conditionally: no document came
        raise HttpStatusError("HTTP 304 (not modified) to a request that asked no condition")
    if 300 <= code < 400:
        raise HttpStatusError(_not_followed(code, capture.location, redact), redacted=True)
    raise HttpStatusError(detail, redacted=True)


def _not_followed(code: int, location: str | None, redact: Callable[[str], str]) -> str:
    """A redirect's outcome: where it pointed (redacted: a URL can carry a token), not followed.

    Doctor reads only the server it was given: a redirect could lead to another
    host (with the API token) or to a route the read-only guard never saw.
    """
    where = f" to {excerpt(location, redact, ERROR_SNIPPET)!r}" if location else ""
    return f"HTTP {code}: redirect{where} not followed (doctor asks only --server, read-only)"


def _asked(retry_after: str, redact: Callable[[str], str]) -> str:
    """The delay a ``Retry-After`` asked for, as the outcome says it.

    400 digits are valid delay-seconds that ``float`` reads as inf (shown as
    "infs"); they are counted, not quoted: a quote is cut between words, which
    leaves nothing of one long number. A value that is no delay is quoted, redacted.
    """
    asked = retry_after_seconds(retry_after)
    if asked is None:
        return repr(excerpt(retry_after, redact, ERROR_SNIPPET))
    if not math.isfinite(asked):
        return f"a {len(retry_after.strip())}-digit number of seconds"
    return f"{asked:g}s"


def _no_document(code: int, blank: int) -> str:
    """The outcome of a success that carried no JSON document: the status it came with, plainly.

    A 204 says by its status that no body follows; an empty (or whitespace) 200 is a
    server that answered without the document. Either way the step has nothing to read.
    """
    expected = "where a JSON document was expected"
    if code == 204:
        return f"HTTP 204 No Content: no body {expected}"
    held = f"a body of only whitespace ({blank} bytes)" if blank else "an empty body"
    return f"HTTP {code} with {held} {expected}"


def _member_for(
    ctx: RunContext, step: HttpStep, capture: HttpCapture, member: str
) -> tuple[PendingMember, CollectError | None, str | None, Any]:
    """The member to store, the error it implies (kept anyway), a note, the parsed JSON."""
    body = capture.body
    if step.media_type != "application/json":
        text = PendingMember(member, body.content, "text/plain", truncated=body.truncated)
        return text, None, None, None
    if body.truncated:
        error = ResponseTooLarge(
            f"response exceeded {step.max_bytes} bytes; kept truncated (not parseable)"
        )
        pending = PendingMember(member, body.content, "text/plain", step.schema_name, True, False)
        return pending, error, None, None
    check = check_json(body.content, step.schema_name, ctx.raw_models)
    if check.parse_error is not None:
        pending = PendingMember(
            member, body.content, "text/plain", step.schema_name, valid=check.valid
        )
        blank = blank_bytes(body.content)
        reason = check.parse_error if blank is None else _no_document(capture.status_code, blank)
        return pending, InvalidJSON(reason), None, None
    pending = PendingMember(
        member, body.content, "application/json", step.schema_name, valid=check.valid
    )
    return pending, None, check.problem, check.parsed
