"""Recovery texts for Flux findings: what to do, what not to do, how to know it worked.

Kept apart from the rules so the wording is reviewed in one place. Facts
come from what flux-core 0.87.5 really does (observed running it) and from
Flux's *Worker observability* page (operator guidance); the words are ours.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from bundler.analyze.wording import listed_names
from schemas import Recovery

from . import recovery_host

WORKER_OBSERVABILITY = "Flux's Worker observability page"
OBSERVED = "flux-core 0.87.5 as observed running (where it differs from that page)"
BOTH = f"{WORKER_OBSERVABILITY}; {OBSERVED}"


def server_down(url: str | None) -> Recovery:
    return Recovery(
        summary=f"Start the Flux server at {url or 'its URL'} again; workers reconnect alone.",
        steps=[
            "Check the server process or service on the server host (`systemctl status`, the "
            "process list) and its log for the reason it stopped.",
            "Start it again from its working directory (Flux reads flux.toml and .flux/ "
            "relative to it; a missing .flux/ makes it exit at once).",
            "Confirm GET /health answers 200 with database true.",
        ],
        cautions=[
            "Do not restart the workers: they retry with backoff (up to reconnect_max_delay) and "
            "reconnect with their existing session once the server answers.",
        ],
        reference=OBSERVED,
    )


def database_down(database: str | None) -> Recovery:
    where = f" ({database})" if database else ""
    return Recovery(
        summary=f"Bring the Flux server's database{where} back; the server recovers by itself.",
        steps=[
            "Check the database service (PostgreSQL's process, its log, disk space) and that "
            "the server host reaches it: the server log's OperationalError lines say how the "
            "connection failed (refused, timed out, authentication, unable to open the file).",
            "For SQLite, check that .flux/flux.db exists and that the server's user may write "
            "it and its directory (WAL needs the -wal and -shm files beside it).",
            "Confirm GET /health answers 200 with database true, then that every worker reads "
            "online in GET /workers.",
        ],
        cautions=[
            "Do not restart or replace the workers: while the database is down the server "
            "cannot persist their pongs, marks them STALE and evicts them; they reconnect on "
            "their own once it is back.",
            "Do not restart the server to clear it: it keeps answering, and retries the "
            "database on every request.",
        ],
        reference=OBSERVED,
    )


def eviction_loop(interval_s: float) -> Recovery:
    minimum = max(5 * interval_s, 50.0)
    return Recovery(
        summary="Stop whatever cuts the worker's idle SSE stream or freezes its host.",
        steps=[
            f"If a load balancer or reverse proxy sits between workers and the server, set its "
            f"idle timeout to at least 5x heartbeat_interval ({minimum:.0f}s here), ideally 5 "
            "minutes; for nginx raise proxy_read_timeout and set proxy_buffering off on "
            "GET /workers/{name}/connect.",
            "If the worker host pauses (sleeping laptop, throttled container, VM live "
            "migration), give it dedicated capacity, or raise heartbeat_timeout and "
            "eviction_grace_period in flux.toml on the server.",
            "If the worker log shows 'Connection lost (...)', fix the network path between "
            "worker and server.",
        ],
        cautions=["Restarting the worker does not help: it will be evicted again."],
        reference=WORKER_OBSERVABILITY,
    )


def evicted(worker: str, *, already_evicted: bool = True) -> Recovery:
    """``already_evicted``: its executions were unclaimed; else that is due at eviction."""
    return Recovery(
        summary=f"Find out why {worker} stopped answering heartbeats, then let it reconnect.",
        steps=[
            f"On {worker}'s host, check whether the process is stopped, hung or starved "
            "(process state, CPU throttling, VM pauses) and the network path to the server.",
            f"Once it runs again it reconnects by itself; {_unclaimed(already_evicted)}, so "
            "stale-claim warnings in its log once it is back are expected.",
        ],
        cautions=[
            "Do not start a second worker under the same name while the original may resume.",
        ],
        reference=WORKER_OBSERVABILITY,
    )


def _unclaimed(already_evicted: bool) -> str:
    """What becomes of a silent worker's executions: done if evicted, else due at eviction."""
    if already_evicted:
        return "its executions were unclaimed and re-dispatched"
    return (
        "Flux unclaims its executions when it evicts it, after the grace period, and "
        "re-dispatches them"
    )


def cut_off(worker: str, *, already_evicted: bool = True) -> Recovery:
    """``already_evicted``: its executions were unclaimed; else that is due at eviction."""
    return Recovery(
        summary=f"Restore the network path between {worker} and the server; {worker} is "
        "running and reconnects by itself.",
        steps=[
            f"From {worker}'s host, check that it reaches the server at the server_url its "
            "flux.toml names (GET /health): routes, firewalls, security groups, proxies, DNS.",
            "Once the path heals the worker reconnects with its existing session (it retries "
            "with backoff up to reconnect_max_delay, 60s by default): confirm 'Worker "
            f"connected: {worker}' in the server log and {worker} online in GET /workers.",
            "Stale-claim warnings in its log once it is back are claim fencing working, not "
            f"a new fault: {_unclaimed(already_evicted)}.",
        ],
        cautions=[
            f"Do not restart {worker} or start another worker under its name: its process is "
            "healthy, and a restart does not mend the network.",
        ],
        reference=WORKER_OBSERVABILITY,
    )


def worker_offline(worker: str, stale_socket: bool) -> Recovery:
    steps = [
        f"Find out why {worker}'s process ended (its log tail, the kernel log for OOM kills, "
        "the service manager).",
        f"Start it again: `flux start worker {worker}` in its working directory, with its "
        "labels and bootstrap token.",
    ]
    if stale_socket:
        steps.insert(
            1,
            f"The control socket .flux/worker-{worker}.sock was left behind (the process did "
            "not shut down cleanly); the worker replaces it when it starts.",
        )
    return Recovery(
        summary=f"Restart {worker}; its running executions are requeued by the server.",
        steps=steps,
        cautions=[
            "Executions it held stay CLAIMED until the orphan sweep (heartbeat_timeout + "
            "eviction_grace_period after its last heartbeat) requeues them.",
        ],
        reference=OBSERVED,
    )


def unhealthy(inprocess: bool, after_pause: bool) -> Recovery:
    if after_pause:
        return Recovery(
            summary="The lag was measured across a pause of the whole process or host, not code.",
            steps=[
                "Check what froze the worker (SIGSTOP, VM migration, a throttled container); "
                "the worker recovers after three clean probes.",
            ],
            reference=WORKER_OBSERVABILITY,
        )
    steps = [
        "Move the CPU-bound workflow to the subprocess runner (runner='subprocess' in "
        "@workflow.with_options, Flux's default) so it no longer blocks the worker's loop.",
        "Or give the worker host dedicated CPU capacity.",
        "If it flaps between healthy and unhealthy, spread work over more workers rather than "
        "raising loop_lag_threshold.",
    ]
    if not inprocess:
        steps[0] = "Find what blocks the worker's event loop (CPU-bound code, a throttled host)."
    return Recovery(
        summary="The worker's event loop is starved: it declines new work until it recovers.",
        steps=steps,
        cautions=["It clears after three clean 1-second probes; a restart only hides the cause."],
        reference=WORKER_OBSERVABILITY,
    )


def registration_refused() -> Recovery:
    return Recovery(
        summary="Let the workers register: allow anonymous writes, or turn authentication on.",
        steps=[
            "On a trusted network: set allow_anonymous = true under [flux.security.auth] in the "
            "server's flux.toml (or FLUX_SECURITY__AUTH__ALLOW_ANONYMOUS=true) and restart the "
            "server.",
            "Otherwise enable authentication ([flux.security.auth] with api_keys or oidc) and "
            "register workers with the bootstrap token or a join token.",
            "The workers retry on their own; confirm 'Worker registered successfully' in the "
            "server log.",
        ],
        cautions=["The server logs nothing about these 401s: only the worker logs show them."],
        reference=OBSERVED,
    )


def token_invalid(worker: str) -> Recovery:
    return Recovery(
        summary=f"Give {worker} the server's current bootstrap token (or a valid join token), "
        "then restart it.",
        steps=[
            "On the server host, read the token the server accepts: `flux server bootstrap-token` "
            "in its working directory (it lives in .flux/bootstrap-token unless set by "
            "FLUX_WORKERS__BOOTSTRAP_TOKEN or [flux.workers] bootstrap_token).",
            f"Set it on {worker}'s host where it is configured (FLUX_WORKERS__BOOTSTRAP_TOKEN "
            "in its environment wins over [flux.workers] bootstrap_token in its flux.toml), "
            "or mint a join token for it.",
            f"Restart {worker}: it keeps retrying with the token it started with.",
            f"Confirm 'Worker registered successfully: {worker}' in the server log.",
        ],
        cautions=[
            "A server started with a new .flux/ directory generates a new token ('Generated "
            "bootstrap token' in its log): every worker holding the old one is refused.",
            "The token is a secret: pass it through the service's environment or secret store, "
            "never in a ticket or on a command line.",
        ],
        reference=OBSERVED,
    )


def server_url(worker: str, configured: str | None, answered: str | None) -> Recovery:
    where = f" ({configured})" if configured else ""
    steps = [
        f"From {worker}'s host, request GET /health at the server_url it uses{where}: a refused "
        "connection, a timeout or a name that does not resolve says which part is wrong.",
        "Fix the URL where it is set (FLUX_WORKERS__SERVER_URL in the worker's environment "
        "wins over [flux.workers] server_url in its flux.toml), or the DNS name, route or "
        "firewall between that host and the server.",
        f"Restart {worker} after changing its settings (it keeps the URL it started with); "
        f"confirm 'Worker registered successfully: {worker}' in the server log and {worker} "
        "online in GET /workers.",
    ]
    if answered:
        steps.insert(1, f"The server answered bundler at {answered}: compare the two URLs.")
    return Recovery(
        summary=f"Point {worker} at a server URL it can reach; it has never registered.",
        steps=steps,
        cautions=[
            "The server logs nothing about a worker that never reaches it: only the worker's "
            "own log shows the failed attempts.",
        ],
        reference=OBSERVED,
    )


def no_eligible_worker(requirements: list[str]) -> Recovery:
    wanted = ", ".join(requirements) or "its requirements"
    return Recovery(
        summary=f"Start a worker that offers {wanted}, or change the workflow's constraints.",
        steps=[
            "Compare `flux execution show ID --detailed` and the workflow's affinity/requests "
            "with `flux worker list --format json`.",
            "Start a matching worker (`flux start worker NAME --label key=value`), or fix the "
            "workflow's affinity/requests and re-register it.",
            "Give runs a park_ttl so an unplaceable execution fails with a reason instead of "
            "waiting forever.",
        ],
        reference=WORKER_OBSERVABILITY,
    )


def eligible_unavailable(
    *,
    offline: Sequence[str] = (),
    unhealthy: Sequence[str] = (),
    paused: Sequence[str] = (),
    draining: Sequence[str] = (),
) -> Recovery:
    """The workers that meet the execution's requirements cannot take work now: each cause
    has its own next step (a paused worker is resumed, an offline one started), so only
    the causes the finding found are said, each naming its workers."""
    steps = []
    if paused:
        steps.append(
            f"{listed_names(list(paused))} {_is(paused)} paused by an operator: on its host, "
            "`flux worker resume NAME`; `flux worker status NAME` then reads active."
        )
    if draining:
        steps.append(
            f"{listed_names(list(draining))} {_is(draining)} draining (asked to stop, by "
            "SIGTERM or SIGINT): it takes no new work and exits once its in-flight executions "
            "end or drain_timeout (60s by default) passes; start it again afterwards (`flux "
            "start worker NAME --label key=value`, with its labels)."
        )
    if unhealthy:
        steps.append(
            f"{listed_names(list(unhealthy))} {_is(unhealthy)} unhealthy (event loop "
            "starved): it declines new work until three clean 1-second probes; find what "
            "blocks its loop (CPU-bound in-process workflow code: runner='subprocess'; a "
            "throttled host), as its heartbeat rung says."
        )
    if offline:
        steps.append(
            f"{listed_names(list(offline))} {_is(offline)} offline: find why its process "
            "ended (its log tail, the kernel log for OOM kills, the service manager) and start "
            "it again in its working directory (`flux start worker NAME --label key=value`, "
            "with its labels)."
        )
    steps += [
        "Or start another worker that meets the execution's requirements: compare `flux "
        "execution show ID --detailed` (its affinity and requests) with `flux worker list "
        "--format json` (each worker's labels and resources).",
        "Confirm the execution is CLAIMED by a worker (`flux execution show ID`).",
    ]
    every = [*paused, *draining, *unhealthy, *offline]
    return Recovery(
        summary=f"Let {listed_names(list(dict.fromkeys(every)))} take work again, or start "
        "another worker that meets the execution's requirements.",
        steps=steps,
        cautions=[
            "A pause is an operator's choice (maintenance, a worker being retired): ask "
            "before resuming a worker someone paused.",
            "The execution waits without a log line until a worker can take it, or fails "
            "at its park_ttl.",
        ],
        reference=BOTH,
    )


def _is(workers: Sequence[str]) -> str:
    return "is" if len(workers) == 1 else "are"


def park_timeout(requirements: list[str]) -> Recovery:
    wanted = ", ".join(requirements) or "its requirements"
    return Recovery(
        summary=f"Flux gave up placing the run (park TTL): start a worker that offers {wanted}, "
        "or change the workflow's constraints, then run it again.",
        steps=[
            "Read the run's error (`flux execution show ID --detailed`): the ParkTimeoutError "
            "names the affinity or request no worker met before the park deadline.",
            "Compare it with `flux worker list --format json`; start a matching worker "
            "(`flux start worker NAME --label key=value`) or fix the workflow's affinity/requests.",
            "If a matching worker exists but was busy or offline, raise the run's park_ttl "
            "(the POST .../run/async?park_ttl= parameter) or [flux.workers] park_ttl.",
            "Run it again and confirm it is CLAIMED.",
        ],
        cautions=["A failed run is not retried by itself: it has to be submitted again."],
        reference=OBSERVED,
    )


def saturated(workers: list[str]) -> Recovery:
    return Recovery(
        summary=f"Every eligible slot is busy on {listed_names(workers)}: wait, or add capacity.",
        steps=[
            "The execution dispatches as soon as a slot frees (first in, first out).",
            "To run more at once, raise FLUX_WORKERS__MAX_CONCURRENT_EXECUTIONS on the worker "
            "(0 = unlimited) or start another worker with the same labels.",
        ],
        reference=WORKER_OBSERVABILITY,
    )


RECOVERIES: dict[str, Callable[..., Recovery]] = {
    "server-down": server_down,
    "database-down": database_down,
    "eviction-loop": eviction_loop,
    "evicted": evicted,
    "cut-off": cut_off,
    "worker-offline": worker_offline,
    "unhealthy": unhealthy,
    "registration-refused": registration_refused,
    "token-invalid": token_invalid,
    "server-url": server_url,
    "no-eligible-worker": no_eligible_worker,
    "eligible-unavailable": eligible_unavailable,
    "park-timeout": park_timeout,
    "saturated": saturated,
    "disk-full": recovery_host.disk_full,
    "disk-nearly-full": recovery_host.disk_nearly_full,
    "volumes-full": recovery_host.volumes_full,
    "clock-skew": recovery_host.clock_skew,
    "socket-no-inodes": recovery_host.socket_without_inodes,
}
"""Recovery id (as ``codes.py`` names it) -> the text, built with the finding's facts."""
