"""Layer 2 for Flux: did the worker's registration (bootstrap token -> session) succeed?

A refusal is read by its cause: a 401 (anonymous writes refused by policy) is not a 403
(the token the worker presents matches none the server holds), and each has its own repair.

Also flags a worker stuck re-registering because the server answers 403 to
the checkpoints of an execution it no longer owns (after an eviction the
worker reads the 403 as a bad session token, re-registers and retries).
"""

from __future__ import annotations

from bundler.analyze.api import RuleContext, RuleResult, make_finding, rule
from bundler.analyze.facts import by_worker, cite_events
from bundler.analyze.wording import counted, listed_names
from schemas import Layer
from schemas.evidence import AuthorizationEvidence, ProductInfo, WorkerAuthorization

from .. import codes, recovery
from ..normalize.authorization import INVALID_TOKEN
from .facts import FLUX, events, server_side, subject_worker, worker_side

SESSION_LOOP = 3


def _denied(ctx: RuleContext, item: WorkerAuthorization, index: int) -> RuleResult:
    if item.native_code == INVALID_TOKEN:
        return _token_refused(ctx, item, index)
    rejected = events(ctx, "auth_rejected", worker=item.worker)
    evidence = [ctx.evidence.cite(AuthorizationEvidence, f"/workers/{index}/decision", "deny")]
    evidence += cite_events(rejected[:1] + rejected[-1:]) if rejected else []
    product = ctx.evidence.get(ProductInfo)
    if product is not None and "security.auth.allow_anonymous" in product.settings:
        value = product.settings["security.auth.allow_anonymous"]
        evidence.append(
            ctx.evidence.cite(ProductInfo, "/settings/security.auth.allow_anonymous", value)
        )
    return RuleResult.fail(
        codes.FLUX_REGISTRATION_REJECTED,
        f"Worker {item.worker} cannot register: {item.message or 'registration refused'}.",
        evidence=evidence,
        recovery=recovery.registration_refused(),
        acceptance=[
            f"'Worker registered successfully: {item.worker}' in the server log",
            f"{item.worker} online in GET /workers",
        ],
        native_code=item.native_code,
        rejected=item.registration.rejected if item.registration else None,
    )


def _token_refused(ctx: RuleContext, item: WorkerAuthorization, index: int) -> RuleResult:
    """Refused with 403 because the server matched no token: a wrong or old bootstrap token.

    Not the anonymous-writes policy (that is a 401): allowing anonymous writes would change
    nothing, the worker needs the token the server holds now.
    """
    refused = server_side(events(ctx, "token_invalid", worker=item.worker))
    rejected = worker_side(events(ctx, "auth_rejected", worker=item.worker))
    evidence = [ctx.evidence.cite(AuthorizationEvidence, f"/workers/{index}/decision", "deny")]
    evidence += cite_events(refused[:1] + refused[-1:] + rejected[-1:])
    times = len(refused) or (item.registration.rejected if item.registration else 0)
    return RuleResult.fail(
        codes.FLUX_BOOTSTRAP_TOKEN_INVALID,
        f"Worker {item.worker} cannot register: the server refused its registration token "
        f"{counted(times, 'time')} (403, 'Invalid registration token for worker: "
        f"{item.worker}' in the server log). The bootstrap or join token it presents is not "
        "one the server accepts: "
        "a wrong or old token, not the anonymous-writes policy.",
        evidence=evidence,
        recovery=recovery.token_invalid(item.worker),
        acceptance=[
            f"'Worker registered successfully: {item.worker}' in the server log",
            f"{item.worker} online in GET /workers",
        ],
        native_code=item.native_code,
        rejected=times,
    )


@rule(Layer.AUTHORIZATION, products=FLUX, needs=(AuthorizationEvidence,))
def flux_registration(ctx: RuleContext) -> RuleResult | None:
    auth = ctx.evidence.need(AuthorizationEvidence)
    name = subject_worker(ctx)
    if name is None:
        # No worker in view: the fleet fails here when no worker at all could register.
        indexed = list(enumerate(auth.workers))
        denied = [(i, w) for i, w in indexed if w.decision == "deny"]
        if denied and len(denied) == len(indexed):
            return _denied(ctx, denied[0][1], denied[0][0])
        if any(w.decision == "allow" for _, w in indexed):
            return RuleResult.pass_(
                make_finding(
                    codes.FLUX_WORKERS_REGISTERED,
                    "pass",
                    "Workers register with the server: "
                    + listed_names([w.worker for _, w in indexed if w.decision == "allow"])
                    + ".",
                    evidence=[ctx.evidence.cite(AuthorizationEvidence, "/workers")],
                )
            )
        return None
    # the worker's own records, looked up: a scan of the fleet's list per ladder was quadratic
    for index, item in by_worker(ctx.evidence, AuthorizationEvidence, auth).get(name, ()):
        if item.decision == "deny":
            return _denied(ctx, item, index)
        if item.decision == "allow":
            loop = events(ctx, "session_rejected", worker=name)
            if len(loop) >= SESSION_LOOP:
                return RuleResult.warn(
                    codes.FLUX_SESSION_REREGISTER_LOOP,
                    f"Worker {name} re-registered {len(loop)} times after 'Session token "
                    "rejected': the server refuses checkpoints of an execution that was "
                    "reassigned while the worker was away, and the worker takes that for a bad "
                    "token. It gives up after terminal_checkpoint_deadline; the run is requeued.",
                    evidence=cite_events(loop),
                    session_rejections=len(loop),
                )
            return RuleResult.pass_(
                make_finding(
                    codes.FLUX_WORKER_REGISTERED,
                    "pass",
                    f"Worker {name} registered with the server ({item.bootstrap_method}).",
                    evidence=[
                        ctx.evidence.cite(
                            AuthorizationEvidence, f"/workers/{index}/decision", "allow"
                        )
                    ],
                )
            )
    return None
