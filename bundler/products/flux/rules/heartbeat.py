"""Layer 1 for Flux: is the worker connected, answering heartbeats, and taking work?

Flux's ``GET /workers`` says ``online`` for a silent worker for up to
heartbeat_timeout + eviction_grace_period, and never says *why* a worker is
offline. So the verdict combines the status word with the server log's
eviction history, the persisted heartbeat in SQLite (else the server's DEBUG
``Pong received`` lines, :mod:`.pongs`), the worker's own control socket and the
stale-socket check on its host.
"""

from __future__ import annotations

from dataclasses import dataclass

from bundler.analyze.api import RuleContext, RuleResult, TimelineEvent, make_finding, rule
from bundler.analyze.contradictions import settled, worker_conflict
from bundler.analyze.doubt import CLOCK_TOLERANCE_S, undecided_heartbeat
from bundler.analyze.facts import (
    cite_events,
    cite_worker,
    find_worker,
    reference_time,
    reported_age,
)
from bundler.analyze.wording import CITED, counted, listed_names, plural
from schemas import Citation, Layer
from schemas.evidence import (
    AuthorizationEvidence,
    ConnectionState,
    ControlSocket,
    JobsEvidence,
    LocalStateEvidence,
    ProductInfo,
    ServerEvidence,
    WorkersEvidence,
    WorkerStatus,
)

from .. import codes, recovery
from ..matching import mismatches
from .evictions import LOOP_CYCLES, Cycle, eviction_cycles, returned_evictions, still_evicted
from .facts import (
    FLUX,
    events,
    may_lie_between,
    policy,
    server_side,
    subject_worker,
    worker_side,
)
from .health import unhealthy_now
from .pongs import heard_in_log
from .server import database_url_known


@rule(Layer.HEARTBEAT, products=FLUX, needs=(WorkersEvidence,))
def flux_worker_heartbeat(ctx: RuleContext) -> RuleResult | None:
    name = subject_worker(ctx)
    if name is None:
        return _eligible_connected(ctx)
    record = find_worker(ctx.evidence, name)
    if record is None:
        return _not_registered(ctx, name)
    index, worker = record
    cycles = eviction_cycles(ctx.timeline, name)
    returned = returned_evictions(cycles)
    if len(returned) >= LOOP_CYCLES:
        interval = policy(ctx).interval_s or 10.0
        cited = [line for cycle in returned for line in (cycle.stale, cycle.evicted, cycle.back)]
        return RuleResult.fail(
            codes.FLUX_EVICTION_LOOP,
            f"Worker {name} was evicted {len(returned)} times and came back each time "
            "(STALE -> evicted -> connected): an eviction loop. The usual cause is a load "
            "balancer closing the idle SSE stream: its idle timeout must be at least 5x "
            f"heartbeat_interval ({5 * interval:.0f}s here; never under 50s, ideally 5 minutes).",
            evidence=cite_events(e for e in cited if e is not None),
            recovery=recovery.eviction_loop(interval),
            acceptance=[f"no 'Worker {name} evicted' line over several heartbeat timeouts"],
            evictions=len(returned),
        )
    # Past this point the verdict rests on the worker's record: not on one of two that disagree.
    conflict = worker_conflict(ctx, name)
    if conflict is not None:
        return conflict
    open_cycle = still_evicted(cycles)
    if open_cycle is not None and worker.connection is not ConnectionState.ONLINE:
        reclaimed = [e.execution for e in open_cycle.unclaimed if e.execution]
        message = f"Worker {name} stopped answering heartbeats: marked STALE, then evicted"
        message += (
            f" ({counted(len(reclaimed), 'execution')} unclaimed: {', '.join(reclaimed)})."
            if (reclaimed)
            else "."
        )
        cut = _cut_off(ctx, name, open_cycle.stale or open_cycle.evicted)
        return RuleResult.fail(
            codes.FLUX_WORKER_EVICTED,
            message + (cut.message if cut else ""),
            evidence=[
                cite_worker(ctx.evidence, index, "native_status", value=worker.native_status),
                *cite_events(open_cycle.lines),
                *(cut.evidence if cut else []),
            ],
            recovery=recovery.cut_off(name) if cut else recovery.evicted(name),
            acceptance=[f"{name} online in GET /workers", "no new STALE line for it"],
            unclaimed=reclaimed,
            cut_off=cut is not None,
        )
    if worker.connection is not ConnectionState.ONLINE:
        if _process_ended(ctx, name):
            return _offline(ctx, index, worker)
        return _marked_stale(ctx, index, worker, cycles) or _offline(ctx, index, worker)
    marked = _marked_stale(ctx, index, worker, cycles)
    if marked is not None:
        return marked
    stale = _persisted_heartbeat_stale(ctx, index, worker)
    if stale is not None:
        return _heard_since_heartbeat(ctx, index, worker) or stale
    unhealthy = unhealthy_now(ctx, index, worker)
    if unhealthy is not None:
        return unhealthy
    age = reported_age(worker)  # None beside a zero heartbeat time: Go's "never"
    if age is None:  # no persisted heartbeat read: the server's DEBUG log may date it
        heard = heard_in_log(ctx, index, worker)
        if heard is not None:
            return heard
    if worker.last_heartbeat_at is None:
        unread = _heartbeat_not_read(ctx, index, worker)
        if unread is not None:
            return unread
    if age is None:
        fresh = _fresh_connection(ctx, name)
        if fresh is not None:
            return fresh
    undecided = undecided_heartbeat(ctx, index, worker, age)
    if undecided is not None:
        return undecided
    return RuleResult.pass_(
        make_finding(
            codes.FLUX_WORKER_CONNECTED,
            "pass",
            f"Worker {name} is {worker.native_status}; its persisted heartbeat was "
            f"{max(age or 0.0, 0.0):.0f}s old when read.",
            evidence=[
                cite_worker(ctx.evidence, index, "native_status", value=worker.native_status)
            ],
        )
    )


LAST_SEEN_QUERY = "select name, last_seen_at from workers"
"""What to run on a database doctor does not read, to date each worker's last heartbeat."""


def _heartbeat_not_read(ctx: RuleContext, index: int, worker: WorkerStatus) -> RuleResult | None:
    """Unknown, saying why and what to collect, when the server's database is not SQLite.

    Flux keeps a worker's last heartbeat (``workers.last_seen_at``) only in its database;
    doctor reads that table from the SQLite file (the inventory's ``db_path``) alone, and
    at INFO Flux logs no line per heartbeat. On PostgreSQL nothing in the bundle dates
    the last one, and ``online`` holds for heartbeat_timeout + eviction_grace_period after
    it: the generic "no heartbeat time" said neither why nor what would decide it.
    """
    product = ctx.evidence.get(ProductInfo)
    if product is None or not database_url_known(product):
        return None
    url = str(product.settings.get("database_url", ""))
    scheme = url.split(":", 1)[0].split("+", 1)[0].lower()
    if not scheme or scheme.startswith("sqlite"):
        return None
    kind = "PostgreSQL" if scheme.startswith("postgres") else scheme
    name = worker.name
    return RuleResult.unknown(
        codes.FLUX_HEARTBEAT_NOT_READ,
        f"Worker {name} is listed {worker.native_status}, but whether it still answers "
        f"heartbeats is unknown: Flux keeps its last heartbeat (workers.last_seen_at) only in "
        f"its database, this server's is {kind}, and bundler reads that table only from a "
        "SQLite file (db_path); at INFO Flux logs no line per heartbeat, and GET /workers "
        "says online until heartbeat_timeout + eviction_grace_period after the last one. "
        "To decide it, collect the server log with FLUX_LOG_LEVEL=DEBUG (a 'Pong received "
        f"from worker {name}' line per heartbeat), or run `{LAST_SEEN_QUERY}` on the "
        "database and compare with heartbeat_timeout.",
        [
            ctx.evidence.cite(ProductInfo, "/settings/database_url", scheme),
            cite_worker(ctx.evidence, index, "last_heartbeat_at", value=None),
        ],
    )


def _fresh_connection(ctx: RuleContext, name: str) -> RuleResult | None:
    """A worker that connected within the heartbeat timeout before collection is fresh.

    Flux writes ``last_seen_at`` once per reaper tick (every heartbeat_interval),
    so a worker that registered moments before the database was read has no
    persisted heartbeat yet. The server's own "Worker connected" line, dated
    within the timeout before collection (and not after it), is as recent a sign
    of life as a heartbeat: the reaper marks a worker STALE only once its last sign of
    life is older than heartbeat_timeout (*Worker observability*). Its own code,
    FLUX_WORKER_FRESHLY_CONNECTED, supersedes the generic "no heartbeat time" (the
    profile's ``supersedes``), which otherwise outranked this pass; a worker merely
    listed online (FLUX_WORKER_CONNECTED) supersedes nothing.
    """
    connected = [e for e in server_side(events(ctx, "connected", worker=name)) if e.at]
    reference = reference_time(ctx.evidence, ctx.evidence.get(WorkersEvidence))
    timeout = policy(ctx).timeout_s
    if not connected or reference is None or timeout is None:
        return None
    latest = connected[-1]
    assert latest.at is not None
    since = (reference - latest.at).total_seconds()
    if not -CLOCK_TOLERANCE_S <= since <= timeout:
        return None
    return RuleResult.pass_(
        make_finding(
            codes.FLUX_WORKER_FRESHLY_CONNECTED,
            "pass",
            f"Worker {name} is online; it connected {max(since, 0.0):.0f}s before collection "
            f"(within the {timeout:.0f}s heartbeat timeout), before Flux first persisted a "
            "heartbeat for it.",
            evidence=cite_events([latest]),
        )
    )


SIGNS_OF_LIFE = {"connected": "connected", "claimed": "claimed an execution"}
"""Server log lines that show a worker reaching the server (its registration, its claim of
work), by timeline kind: what the server heard from it besides a heartbeat."""


def _heard_since_heartbeat(ctx: RuleContext, index: int, worker: WorkerStatus) -> RuleResult | None:
    """A persisted heartbeat that lags a worker back from a hang, when the server heard from it
    since, within the timeout.

    A worker stopped (SIGSTOP) until evicted, then resumed, reconnects and takes work at
    once; Flux persists ``last_seen_at`` only on its next reaper tick after a heartbeat, so
    for the first seconds the database still holds the heartbeat from before the hang. Read
    alone, that said "stopped answering, will be evicted" of a worker that had just claimed
    and run an execution (the ``flux-hung`` pair's AFTER bundle, one collection in five).
    The server's own line that the worker connected or claimed work, later than that
    heartbeat and within heartbeat_timeout before collection, is a sign of life as recent.
    """
    heard = [
        e for e in server_side(events(ctx, *SIGNS_OF_LIFE, worker=worker.name)) if e.at is not None
    ]
    reference = reference_time(ctx.evidence, ctx.evidence.get(WorkersEvidence))
    timeout = policy(ctx).timeout_s
    if not heard or reference is None or timeout is None or worker.last_heartbeat_at is None:
        return None
    latest = max(heard, key=lambda e: e.at or reference)
    assert latest.at is not None
    since = (reference - latest.at).total_seconds()
    if latest.at <= worker.last_heartbeat_at or not -CLOCK_TOLERANCE_S <= since <= timeout:
        return None
    age = (reference - worker.last_heartbeat_at).total_seconds()
    name = worker.name
    return RuleResult.pass_(
        make_finding(
            codes.FLUX_WORKER_HEARD_SINCE_HEARTBEAT,
            "pass",
            f"Worker {name} is {worker.native_status}; the server heard from it "
            f"{max(since, 0.0):.0f}s before collection (it {SIGNS_OF_LIFE[latest.kind]}), "
            f"within the {timeout:.0f}s heartbeat timeout, after its last persisted "
            f"heartbeat ({age:.0f}s old): Flux had not persisted a heartbeat since.",
            evidence=[
                *cite_events([latest]),
                cite_worker(
                    ctx.evidence, index, "last_heartbeat_at", value=worker.last_heartbeat_at
                ),
            ],
        )
    )


def _eligible_connected(ctx: RuleContext) -> RuleResult | None:
    """An unassigned execution: are the workers that may take it connected?"""
    job = ctx.target.job
    doc = ctx.evidence.need(WorkersEvidence)
    if job is None:
        return None
    indexed = list(enumerate(doc.workers))
    if all(mismatches(job.requirements, w) for _, w in indexed):
        return RuleResult.not_applicable()  # nobody may take it: placement says why
    # A worker listed twice counts only when every record of it is eligible and connected.
    online = settled(
        indexed,
        lambda w: not mismatches(job.requirements, w) and w.connection is ConnectionState.ONLINE,
    ).yes
    if online:
        return RuleResult.pass_(
            make_finding(
                codes.FLUX_ELIGIBLE_WORKER_CONNECTED,
                "pass",
                f"{counted(len(online), 'worker')} that may run {job.name} "
                f"{plural(len(online), 'is', 'are')} connected: "
                f"{listed_names([w.name for _, w in online])}.",
                evidence=[
                    cite_worker(ctx.evidence, i, "native_status", value=w.native_status)
                    for i, w in online[:CITED]
                ],
            )
        )
    return None  # the per-worker ladders of the offline candidates say why


def _dead_sockets(ctx: RuleContext, name: str) -> list[tuple[int, ControlSocket]]:
    """The worker's control sockets that refused a connection on its host: left by a process
    that is gone (a running worker answers on its socket)."""
    local = ctx.evidence.get(LocalStateEvidence)
    return [
        (i, s)
        for i, s in enumerate(local.sockets if local else [])
        if s.worker == name and s.responsive is False
    ]


def _ends_in_shutdown(own_log: list[TimelineEvent]) -> bool:
    """The worker's own log ends with its shutdown."""
    return bool(own_log) and own_log[-1].kind in ("shutdown", "sigterm")


def _process_ended(ctx: RuleContext, name: str) -> bool:
    """Evidence from the worker's own host that its process is gone, whatever the server saw."""
    return bool(_dead_sockets(ctx, name)) or _ends_in_shutdown(
        worker_side(ctx.timeline.for_worker(name))
    )


def _offline(ctx: RuleContext, index: int, worker: WorkerStatus) -> RuleResult:
    name = worker.name
    sockets = _dead_sockets(ctx, name)
    disconnected = server_side(events(ctx, "disconnected", worker=name))[-1:]
    unclaimed = server_side(events(ctx, "unclaimed", worker=name))
    own_log = worker_side(ctx.timeline.for_worker(name))
    clean = _ends_in_shutdown(own_log)
    if worker.host_alias is None and not _holds_work(ctx, name):
        return RuleResult.not_applicable(
            codes.FLUX_PHANTOM_WORKER,
            f"Worker {name} is offline and not in the inventory: a row Flux keeps so a "
            "departed worker can re-register under its name (expected, not an incident).",
        )
    # A process that answers on its host did not end: only its path to the server did.
    cut = None if sockets or clean else _cut_off(ctx, name, None)
    if cut is not None:
        message = f"Worker {name} is offline: the server saw it disconnect." + cut.message
    else:
        how = "it shut down cleanly" if clean else "its process ended without shutting down"
        message = f"Worker {name} is offline: the server saw it disconnect and {how}."
    if sockets:
        message += f" A stale control socket was left on its host ({sockets[0][1].path})."
    if unclaimed:
        message += f" The server unclaimed {counted(len(unclaimed), 'execution')} it held."
    evidence = [cite_worker(ctx.evidence, index, "native_status", value=worker.native_status)]
    evidence += cite_events(disconnected + unclaimed + own_log[-1:])
    evidence += [
        ctx.evidence.cite(LocalStateEvidence, f"/sockets/{i}/responsive", False) for i, _ in sockets
    ]
    evidence += cut.evidence if cut else []
    return RuleResult.fail(
        codes.FLUX_WORKER_OFFLINE,
        message,
        evidence=evidence,
        recovery=recovery.cut_off(name, already_evicted=bool(unclaimed))
        if cut
        else recovery.worker_offline(name, bool(sockets)),
        acceptance=[f"{name} online in GET /workers", f"flux worker status {name} answers"],
        stale_socket=sockets[0][1].path if sockets else None,
        clean_shutdown=clean,
        cut_off=cut is not None,
    )


def _holds_work(ctx: RuleContext, name: str) -> bool:
    jobs = ctx.evidence.get(JobsEvidence)
    return any(
        not j.phase.terminal
        and (
            j.assigned_worker == name or (j.requirements and j.requirements.required_worker == name)
        )
        for j in (jobs.jobs if jobs else [])
    )


def _persisted_heartbeat_stale(
    ctx: RuleContext, index: int, worker: WorkerStatus
) -> RuleResult | None:
    """Online per the API, but SQLite's heartbeat froze longer than the STALE threshold.

    ``last_seen_at`` is flushed once per reaper tick, so one interval of slack
    is allowed on top of heartbeat_timeout.
    """
    hb = policy(ctx)
    age = reported_age(worker)
    if age is None or hb.timeout_s is None:
        return None
    limit = hb.timeout_s + (hb.interval_s or 0)
    if age <= limit:
        return None
    return RuleResult.fail(
        codes.FLUX_HEARTBEAT_STALE,
        f"Worker {worker.name} is listed {worker.native_status}, but its last persisted "
        f"heartbeat is {age:.0f}s old (STALE after {hb.timeout_s:.0f}s): it has stopped "
        "answering and will be evicted.",
        evidence=[
            cite_worker(ctx.evidence, index, "last_heartbeat_at", value=worker.last_heartbeat_at)
        ],
        recovery=recovery.evicted(worker.name, already_evicted=False),
        heartbeat_age_s=age,
    )


@dataclass(frozen=True)
class CutOff:
    """Why a silent worker is cut off rather than hung: what to add to the finding."""

    message: str
    evidence: list[Citation]


def _cut_off(ctx: RuleContext, name: str, since: TimelineEvent | None) -> CutOff | None:
    """The worker is silent to the server, yet its process answered on its own host.

    A hung (stopped) or killed worker cannot answer ``flux worker status`` on its control
    socket; one that does is running, so what the server misses is its packets: the
    network path between them (the *Worker observability* page's "network partition").
    Its own log then says so once its SSE stream went quiet (``Connection lost``,
    ``SSE stream silent``); those lines since the server marked it STALE are cited.
    """
    local = ctx.evidence.get(LocalStateEvidence)
    answered = [
        (i, s)
        for i, s in enumerate(local.sockets if local else [])
        if s.worker == name and s.responsive is True
    ]
    health = worker_side(events(ctx, "unhealthy", "healthy", worker=name))
    if not answered or (health and health[-1].kind == "unhealthy"):  # starved: it says so
        return None
    index, socket = answered[0]
    start = ctx.timeline.bounds(since)[0] if since is not None else None
    lost = [  # read on the server's clock: the worker's log is on its own
        e
        for e in worker_side(events(ctx, "connection_lost", "sse_error", worker=name))
        if start is None or may_lie_between(ctx, e, start, None)
    ]
    message = (
        f" Yet its process runs and answered `flux worker status` on its host at collection "
        f"({socket.detail or 'answered'}): not killed, not hung now. A worker its host hears "
        "and its server does not is cut off by the network (unless it was frozen meanwhile "
        "and has just resumed)"
    )
    if lost:
        message += f" (its own log: {lost[0].detail.get('message') or lost[0].kind})"
    evidence = [ctx.evidence.cite(LocalStateEvidence, f"/sockets/{index}/responsive", True)]
    return CutOff(message + ".", evidence + cite_events(lost[:1] + lost[-1:]))


def _marked_stale(
    ctx: RuleContext, index: int, worker: WorkerStatus, cycles: list[Cycle]
) -> RuleResult | None:
    """The server log's latest word on the worker is ``marked STALE``: not evicted, not back.

    Flux keeps a STALE worker ``online`` in ``GET /workers`` until the grace period ends
    (the *Worker observability* page's state 2); the log line is the first sign. But a
    worker cut off by the network is often listed ``offline`` before its eviction: the
    server closes its stalled event stream (``Worker w2 disconnected``) seconds after the
    STALE line, observed with flux-core 0.87.5, and evicts it only when the grace ends. The
    STALE line is believed only with a persisted heartbeat past heartbeat_timeout (or none
    read): a fresh one says an old STALE line was followed by a recovery the log no longer
    holds.
    """
    last = cycles[-1] if cycles else None
    if last is None or last.stale is None or last.evicted is not None or last.back is not None:
        return None
    hb = policy(ctx)
    age = reported_age(worker)
    if age is not None and hb.timeout_s is not None and age <= hb.timeout_s:
        return None
    grace = last.stale.detail.get("grace_s")
    eviction = (
        "Flux evicts it "
        + (f"after {grace}s of grace" if grace is not None else "after the grace period")
        + " and unclaims its executions."
    )
    start = ctx.timeline.bounds(last.stale)[0]
    closed = [
        e
        for e in server_side(events(ctx, "disconnected", worker=worker.name))
        if may_lie_between(ctx, e, start, None)
    ][-1:]
    if worker.connection is ConnectionState.ONLINE:
        message = (
            f"Worker {worker.name} is listed {worker.native_status}, but the server marked it "
            f"STALE (missed heartbeat) and it has not recovered since: {eviction}"
        )
    else:
        then = ", then closed its stream" if closed else ""
        message = (
            f"Worker {worker.name} is listed {worker.native_status}: the server marked it STALE "
            f"(missed heartbeat){then} and has not evicted it yet: {eviction} Until then they "
            "stay claimed by it."
        )
    cut = _cut_off(ctx, worker.name, last.stale)
    return RuleResult.fail(
        codes.FLUX_HEARTBEAT_STALE,
        message + (cut.message if cut else ""),
        evidence=[
            cite_worker(ctx.evidence, index, "native_status", value=worker.native_status),
            *cite_events([last.stale, *closed]),
            *(cut.evidence if cut else []),
        ],
        recovery=recovery.cut_off(worker.name, already_evicted=False)
        if cut
        else recovery.evicted(worker.name, already_evicted=False),
        heartbeat_age_s=age,
        cut_off=cut is not None,
    )


def _not_registered(ctx: RuleContext, name: str) -> RuleResult | None:
    """A worker the server has never listed: blocked before heartbeats, at registration."""
    auth = ctx.evidence.get(AuthorizationEvidence)
    for item in auth.workers if auth else []:
        if item.worker == name and item.decision == "deny":
            return RuleResult.unknown(
                codes.FLUX_WORKER_NEVER_REGISTERED,
                f"Worker {name} never registered, so it has no heartbeat yet: see runtime "
                "authorization.",
            )
    return _cannot_reach_server(ctx, name)


REGISTRATION_KINDS = ("registering", "connection_lost", "auth_rejected", "connection_established")


def _cannot_reach_server(ctx: RuleContext, name: str) -> RuleResult | None:
    """Never registered because its registrations never reached the server (wrong URL, DNS).

    Its log shows ``Registering worker`` followed by ``Connection lost (ConnectError …)``
    again and again, and never ``Connection established``; the server, which answered the
    collector (the server rung passed), logs nothing of it. The worker's own settings name the
    URL it tries, to compare with the one that answered.
    """
    own = worker_side(events(ctx, *REGISTRATION_KINDS, worker=name))
    attempts = [i for i, e in enumerate(own) if e.kind == "registering"]
    if not attempts or any(e.kind == "connection_established" for e in own):
        return None
    # Every attempt since the first failed to connect (the latest may still be under way).
    lost = [e for e in own[attempts[0] :] if e.kind == "connection_lost"]
    if not lost or any(e.kind == "auth_rejected" for e in own):
        return None
    failed = lost
    why = failed[-1].detail.get("exc_class") or "connection lost"
    said = failed[-1].detail.get("message")
    auth = ctx.evidence.get(AuthorizationEvidence)
    indexed = [(i, w) for i, w in enumerate(auth.workers if auth else []) if w.worker == name]
    configured = indexed[0][1] if indexed else None
    server = ctx.evidence.get(ServerEvidence)
    answered = server.url if server else None
    message = (
        f"Worker {name} never registered: its "
        f"{counted(len(attempts), 'registration attempt')} never reached a server ({why}"
        + (f": {said}" if said else "")
        + "), while the server "
        + (f"answered the collector at {answered}" if answered else "answered the collector")
        + "."
    )
    evidence = cite_events(lost[:1] + lost[-1:])
    if configured is not None and configured.server_url:
        setting = (
            "FLUX_WORKERS__SERVER_URL in its environment"
            if configured.server_url_source == "env"
            else "[flux.workers] server_url in its flux.toml"
        )
        differs = answered and configured.server_url.rstrip("/") != answered.rstrip("/")
        message += f" Its settings send it to {configured.server_url} ({setting})" + (
            ", not the URL that answered: the likely cause." if differs else "."
        )
        evidence.append(
            ctx.evidence.cite(
                AuthorizationEvidence,
                f"/workers/{indexed[0][0]}/server_url",
                configured.server_url,
            )
        )
    message += (
        " A wrong server_url, or a name, route or firewall between its host and the server, "
        "keeps it out."
    )
    return RuleResult.fail(
        codes.FLUX_WORKER_CANNOT_REACH_SERVER,
        message,
        evidence=evidence,
        recovery=recovery.server_url(name, configured.server_url if configured else None, answered),
        acceptance=[
            f"'Worker registered successfully: {name}' in the server log",
            f"{name} online in GET /workers",
        ],
        attempts=len(attempts),
        server_url=configured.server_url if configured else None,
        answered_url=answered,
    )
