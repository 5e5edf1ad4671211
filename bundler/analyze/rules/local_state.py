"""Worker-local state on disk: corrupt state databases and stale control sockets.

Which rung? A worker with a corrupt job-state database can still heartbeat,
but what was deployed to it cannot run: that is the **deployment** rung's
question ("did the exact rendered job reach a runnable state?"). A corrupt
*auth cache* instead breaks the worker's right to run, so it fails the
**authorization** rung. Both carry the *Worker Recovery and Serviceability*
guide's corrupt-local-state path (stop the service, one-time repair or the narrower
auth repair, never edit the auth-cache or settings databases, a full reset last), in the
product's words when it has its own (LyftData's ``--reset-state``), never another's.

A control socket that refuses connections means the worker process that made
it is gone (Flux leaves ``.flux/worker-<name>.sock`` behind a killed worker):
evidence for the heartbeat rung.
"""

from __future__ import annotations

from schemas import Layer
from schemas.evidence import ControlSocket, LocalStateEvidence, StateFileCheck

from .. import codes
from ..api import RuleContext, RuleResult, rule
from ..facts import citations, cite, cite_source, find_worker, host_for_worker, memoized
from ..recovery import PATHS
from ._outcome import Outcome

AUTH_HINTS = ("auth", "lease", "identity", "credential")


def _belongs(ctx: RuleContext, worker: str | None, host: str | None) -> bool:
    target = ctx.target.worker
    if target is None:
        return False
    if worker is not None:
        return worker == target
    found = host_for_worker(ctx.evidence, target)
    alias = found[1].alias if found else None
    if alias is None:
        listed = find_worker(ctx.evidence, target)
        alias = listed[1].host_alias if listed else None
    return host is not None and host == alias


def _is_auth(check: StateFileCheck) -> bool:
    return check.kind == "key" or any(h in check.path.lower() for h in AUTH_HINTS)


def _files(ctx: RuleContext, auth: bool) -> list[tuple[int, StateFileCheck]]:
    doc = ctx.evidence.get(LocalStateEvidence)
    return [
        (i, f)
        for i, f in enumerate(doc.files if doc else [])
        if _belongs(ctx, f.worker, f.host_alias) and _is_auth(f) == auth
    ]


def _judge_files(ctx: RuleContext, auth: bool) -> RuleResult | None:
    files = _files(ctx, auth)
    out = Outcome()
    code = codes.AUTH_CACHE_CORRUPT if auth else codes.LOCAL_STATE_CORRUPT
    # the product's own text (its commands) first: the generic one names none
    chosen = ctx.recovery_paths.get("local-state") or PATHS["local-state"]
    recovery = chosen.model_copy(deep=True)
    if auth:
        recovery.summary = "Repair only the cached authorization, with the service stopped."
        recovery.steps.insert(
            1, "Prefer the narrower repair of cached authorization: nothing else is hit."
        )
    for index, check in files:
        where = citations(
            cite(
                ctx.evidence,
                LocalStateEvidence,
                "files",
                index,
                "integrity",
                value=check.detail or check.integrity,
            ),
            cite_source(check.source),
        )
        what = "auth cache" if auth else "state file"
        if check.integrity == "corrupt":
            detail = f" ({check.detail})" if check.detail else ""
            out.fail(
                code,
                f"Worker {ctx.target.worker}'s {what} {check.path} is corrupt{detail}.",
                evidence=where,
                recovery=recovery,
                path=check.path,
            )
        elif check.integrity == "unreadable":
            out.warn(
                codes.LOCAL_STATE_UNREADABLE,
                f"Worker {ctx.target.worker}'s {what} {check.path} could not be checked.",
                evidence=where,
                path=check.path,
            )
    return out.result() if out else None


@rule(Layer.DEPLOYMENT)
def local_state_integrity(ctx: RuleContext) -> RuleResult | None:
    return _judge_files(ctx, auth=False)


@rule(Layer.AUTHORIZATION)
def auth_cache_integrity(ctx: RuleContext) -> RuleResult | None:
    return _judge_files(ctx, auth=True)


def _refusing(ctx: RuleContext, doc: LocalStateEvidence) -> list[tuple[int, ControlSocket]]:
    """The sockets that refused connections, found once per evidence set: the rule is asked
    of every worker of the fleet (a host rule), and few sockets are stale."""
    return memoized(
        ctx.evidence,
        "refusing-sockets",
        (doc, doc.sockets),
        lambda: [(i, s) for i, s in enumerate(doc.sockets) if s.responsive is False],
    )


@rule(Layer.HEARTBEAT, host=True)
def stale_control_socket(ctx: RuleContext) -> RuleResult | None:
    doc = ctx.evidence.get(LocalStateEvidence)
    sockets = [
        (i, s)
        for i, s in (_refusing(ctx, doc) if doc else [])
        if _belongs(ctx, s.worker, s.host_alias)
    ]
    if not sockets:
        return None
    index, sock = sockets[0]
    listed = find_worker(ctx.evidence, ctx.target.worker)
    online = listed is not None and listed[1].connection.value == "online"
    meaning = (
        "yet the control plane lists it online: another process may hold its name"
        if online
        else "the worker process that created it is gone"
    )
    return RuleResult.warn(
        codes.STALE_CONTROL_SOCKET,
        f"Worker {ctx.target.worker}'s control socket {sock.path} refuses connections: {meaning}.",
        evidence=citations(
            cite(
                ctx.evidence,
                LocalStateEvidence,
                "sockets",
                index,
                "responsive",
                value=sock.detail or False,
            ),
            cite_source(sock.source),
        ),
        path=sock.path,
    )


RULES = (local_state_integrity, auth_cache_integrity, stale_control_socket)
