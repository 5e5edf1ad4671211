"""Flux's own text for generic recovery paths: what a generic finding on a Flux fleet advises.

The generic texts (:mod:`bundler.analyze.recovery`) name no product, so they cannot say
``flux worker pause`` or ``server_url``; a Flux operator reading "remove the worker record
through the product's UI or CLI" would look for a command Flux does not have. Each path
here says it in Flux's terms, from its *Worker observability* page and flux-core 0.87.5 as
observed running; every command is one ``flux --help`` lists. Apart from :mod:`.recovery`
(the texts of Flux's own findings), so each stays one reviewable page.
"""

from __future__ import annotations

from schemas import Recovery

from .recovery import BOTH, WORKER_OBSERVABILITY

HEARTBEAT = Recovery(
    summary="Find out why the worker stopped answering heartbeats before restarting it.",
    steps=[
        "On the worker host, check whether the process runs, is stopped (SIGSTOP), hung "
        "or starved, and read its log for 'Connection lost'.",
        "Check idle timeouts of any proxy or load balancer on GET /workers/{name}/connect: "
        "at least 5x heartbeat_interval.",
        "Check for host pauses longer than heartbeat_timeout + eviction_grace_period.",
        "Once it runs, it reconnects by itself; confirm it reads online in GET /workers.",
    ],
    cautions=["A worker that exited cleanly long ago is listed offline by design."],
    reference=WORKER_OBSERVABILITY,
)

CAPACITY = Recovery(
    summary="Give the execution a worker with a free slot and the resources it requests.",
    steps=[
        "If every eligible slot is busy, the execution dispatches when one frees: wait, "
        "raise FLUX_WORKERS__MAX_CONCURRENT_EXECUTIONS, or start another matching worker.",
        "If a resource is short, start a worker that offers it or lower the request.",
        "If the worker reports event-loop starvation, move CPU-bound code to the "
        "subprocess runner or give the host dedicated capacity.",
    ],
    reference=WORKER_OBSERVABILITY,
)

CONNECTIVITY = Recovery(
    summary="Restore the path from the worker host to the Flux server; the worker reconnects "
    "by itself.",
    steps=[
        "On the worker host, find the server_url it uses (FLUX_WORKERS__SERVER_URL in its "
        "environment wins over [flux.workers] server_url in its flux.toml) and request "
        "GET /health there: a refused connection, a timeout or a name that does not resolve "
        "says which part is wrong (route, firewall, DNS).",
        "For an https server_url, check that the worker host trusts the CA that signed the "
        "server's certificate and that the certificate names the host in that URL.",
        "If a load balancer or reverse proxy sits in between, set its idle timeout to at least "
        "5x heartbeat_interval: GET /workers/{name}/connect is an SSE stream, idle between "
        "dispatches (for nginx, proxy_read_timeout and proxy_buffering off).",
        "Once the path heals the worker reconnects with its existing session (backoff up to "
        "reconnect_max_delay, 60s by default): confirm 'Worker connected: NAME' in the server "
        "log and the worker online in `flux worker list`.",
    ],
    cautions=[
        "Read the worker's log before restarting anything: the server logs nothing about a "
        "worker that cannot reach it, and only the worker's 'Connection lost (...)' lines "
        "say why.",
        "A worker whose settings changed keeps the URL it started with until it is restarted.",
    ],
    reference=BOTH,
)

PLACEMENT = Recovery(
    summary="Make the workflow's affinity and requests and an online worker's labels and "
    "resources agree.",
    steps=[
        "Read what the execution wants: `flux execution show ID --detailed` (its requests and "
        "affinity come from @workflow.with_options(requests=..., affinity=...)).",
        "Read what the workers offer: `flux worker list --format json` (status, labels, "
        "resources); the finding names each unmet label or request.",
        "Start a worker that matches (`flux start worker NAME --label key=value`), or change "
        "the workflow's affinity/requests and register it again (`flux workflow register "
        "FILE`).",
        "Confirm the execution is CLAIMED by a matching worker (`flux execution show ID`).",
    ],
    cautions=[
        "An execution no worker can take waits in CREATED without a log line, forever unless "
        "it has a park_ttl: give runs one so they fail with a reason instead.",
        "A matching worker that is unhealthy or paused declines new work by design: see its "
        "heartbeat rung, not its labels.",
    ],
    reference=WORKER_OBSERVABILITY,
)

REMOVE = Recovery(
    summary="Retire a Flux worker by draining and stopping it; its row stays in GET /workers, "
    "offline, by design.",
    steps=[
        "On its host, stop it claiming new work: `flux worker pause NAME` (it keeps heartbeating).",
        "Let its in-flight executions finish (`flux worker status NAME` shows in_flight), or "
        "cancel them with `flux worker cancel-all NAME` (each ends CANCELLED, not re-run "
        "elsewhere).",
        "Check that another online worker offers the labels and resources its workflows need "
        "(`flux worker list --format json`), or their next runs wait unplaced.",
        "Keep the log you need (Flux logs to stdout only: wherever the operator captures it), "
        "then stop the process with SIGTERM: it drains (up to drain_timeout, 60s by default) "
        "and logs 'Drain complete'.",
        "Confirm it reads offline in `flux worker list --format json`, and that neither "
        "`flux execution list --state CLAIMED` nor `--state RUNNING` shows it.",
    ],
    cautions=[
        "Flux has no command that deletes a worker's record: the offline row stays so the "
        "name can register again; count live capacity with GET /workers?status=online.",
        "A worker killed instead of drained leaves its executions CLAIMED until the orphan "
        "sweep (heartbeat_timeout + eviction_grace_period after its last heartbeat) requeues "
        "them, and leaves its control socket behind.",
    ],
    reference=BOTH,
)

REPLACE = Recovery(
    summary="Replace a Flux worker without two live workers under one name.",
    steps=[
        "Record its name, labels and settings (`flux worker show NAME`; its flux.toml and "
        "FLUX_* environment).",
        "Pause it (`flux worker pause NAME`) and let its in-flight work finish, then stop it "
        "with SIGTERM so it drains.",
        "Make sure the old process is gone (`flux worker status NAME` on its host no longer "
        "answers) before anything starts under its name.",
        "Install flux-core on the new host (the server reports its version in GET /health: "
        "`flux health`).",
        "Give it a registration credential: on the server host `flux server join-token "
        "--subject NAME` mints a one-time token bound to the name (or use the bootstrap "
        "token, `flux server bootstrap-token`), set as FLUX_WORKERS__BOOTSTRAP_TOKEN in its "
        "environment.",
        "Start it with the same labels (`flux start worker NAME --label key=value`) and "
        "confirm 'Worker registered successfully: NAME' in the server log and the worker "
        "online with its runtime and resources in `flux worker list --format json`.",
        "Run the affected workflow on it (pinned with the X-Flux-Require-Worker header) and "
        "confirm the execution COMPLETED.",
    ],
    cautions=[
        "Do not start the replacement while the original may still resume (a hung or "
        "partitioned process): two workers would answer to one name.",
        "A token is a secret: pass it through the service's environment or secret store, never "
        "on a command line or in a ticket.",
    ],
    reference=BOTH,
)

OUTCOME = Recovery(
    summary="Read why the Flux execution failed, fix its cause, then run the workflow again "
    "and confirm the new execution COMPLETED.",
    steps=[
        "Read the failed execution's error: `flux execution show ID --detailed` prints its "
        "output (the exception's type and message) and its events: TASK_FAILED names the "
        "task that raised, WORKFLOW_FAILED carries the error the run ended with.",
        "See whether every run fails or only some (one worker, one input): `flux execution "
        "list --workflow NAMESPACE/NAME --state FAILED`, and `flux execution show ID` of each.",
        "Fix the cause: the workflow's code (register the fixed file again: `flux workflow "
        "register FILE`), its input, or what its tasks depend on.",
        "Run the workflow again (`flux workflow run NAME INPUT --mode sync` waits and prints "
        "the new execution; pin it to the target worker with the X-Flux-Require-Worker "
        "header) and confirm the new execution is COMPLETED (`flux execution show ID`).",
    ],
    cautions=[
        "Restarting or replacing the worker does not repair an error the workflow's own tasks "
        "raise: read the error before touching the fleet.",
    ],
    reference=BOTH,
)
"""A failed execution (the generic ``outcome`` path): Flux has no canary and no receipt, so
the proof is the workflow's next execution COMPLETED, as its acceptance checklist says."""

RECOVERY_PATHS: dict[str, Recovery] = {
    "heartbeat": HEARTBEAT,
    "capacity": CAPACITY,
    "connectivity": CONNECTIVITY,
    "placement": PLACEMENT,
    "remove": REMOVE,
    "replace": REPLACE,
    "outcome": OUTCOME,
}
"""Flux's own text for generic recovery paths (the generic texts name no product)."""
