"""Flux's own finding codes, declared once (rungs, title, recovery id), registered by the profile.

The recovery ids name Flux's texts in :mod:`bundler.products.flux.recovery`
(``RECOVERIES``); the rules build those texts with the facts of the finding.
"""

from __future__ import annotations

from bundler.analyze.catalog import Catalog
from schemas import Layer

FLUX_CODES = Catalog("flux")
_ = FLUX_CODES.declare
# Shorthands, so each declaration reads on one line: `_(code, rungs, title, recovery id)`.
S, H, A, P = Layer.SERVER, Layer.HEARTBEAT, Layer.AUTHORIZATION, Layer.PLACEMENT
D, R, C, OUT = Layer.DEPLOYMENT, Layer.REQUIREMENTS, Layer.CAPACITY, Layer.OUTCOME

FLUX_SERVER_UNREACHABLE = _(
    "FLUX_SERVER_UNREACHABLE", S, "server did not answer; workers' lost lines cited", "server-down"
)
FLUX_SERVER_UNHEALTHY = _("FLUX_SERVER_UNHEALTHY", S, "GET /health: not healthy")
FLUX_SERVER_NOT_READY = _("FLUX_SERVER_NOT_READY", S, "GET /ready: not ready")
FLUX_DATABASE_UNAVAILABLE = _(
    "FLUX_DATABASE_UNAVAILABLE", S, "server up, its database unreachable", "database-down"
)
FLUX_SERVER_HEALTHY = _("FLUX_SERVER_HEALTHY", S, "server healthy, database up, ready")
FLUX_SQLITE_MULTI_WORKER = _("FLUX_SQLITE_MULTI_WORKER", S, "SQLite server with several workers")

FLUX_EVICTION_LOOP = _(
    "FLUX_EVICTION_LOOP", H, "evicted and back, again and again", "eviction-loop"
)
FLUX_WORKER_EVICTED = _("FLUX_WORKER_EVICTED", H, "marked STALE, then evicted", "evicted")
FLUX_HEARTBEAT_STALE = _(
    "FLUX_HEARTBEAT_STALE", H, "heartbeat too old or marked STALE, not yet evicted", "evicted"
)
FLUX_WORKER_OFFLINE = _(
    "FLUX_WORKER_OFFLINE", H, "worker offline: how it ended, or cut off", "worker-offline"
)
FLUX_PHANTOM_WORKER = _("FLUX_PHANTOM_WORKER", H, "offline row of a departed worker")
FLUX_HEARTBEAT_NOT_READ = _(
    "FLUX_HEARTBEAT_NOT_READ", H, "no persisted heartbeat: the database is not a SQLite file"
)
FLUX_WORKER_CANNOT_REACH_SERVER = _(
    "FLUX_WORKER_CANNOT_REACH_SERVER", H, "never reached its server_url to register", "server-url"
)
FLUX_WORKER_NEVER_REGISTERED = _(
    "FLUX_WORKER_NEVER_REGISTERED", H, "never registered: no heartbeat to judge"
)
FLUX_WORKER_UNHEALTHY = _("FLUX_WORKER_UNHEALTHY", H, "connected, event loop starved", "unhealthy")
FLUX_WORKER_CONNECTED = _("FLUX_WORKER_CONNECTED", H, "worker connected")
FLUX_WORKER_CLOCK_SKEW = _(
    "FLUX_WORKER_CLOCK_SKEW",
    H,
    "worker's clock off: its run stamps disagree with the server's",
    "clock-skew",
)
FLUX_HEARTBEAT_LOGGED = _(
    "FLUX_HEARTBEAT_LOGGED", H, "heartbeat logged within heartbeat_timeout (DEBUG server log)"
)
FLUX_WORKER_FRESHLY_CONNECTED = _(
    "FLUX_WORKER_FRESHLY_CONNECTED", H, "connected within heartbeat_timeout, before a heartbeat"
)
FLUX_WORKER_HEARD_SINCE_HEARTBEAT = _(
    "FLUX_WORKER_HEARD_SINCE_HEARTBEAT",
    H,
    "heard from within heartbeat_timeout, after a persisted heartbeat that lags",
)
FLUX_ELIGIBLE_WORKER_CONNECTED = _(
    "FLUX_ELIGIBLE_WORKER_CONNECTED", H, "workers that may run the execution are connected"
)
FLUX_CONTROL_SOCKET_NO_INODES = _(
    "FLUX_CONTROL_SOCKET_NO_INODES",
    H,
    "runs without its control socket: no inode left on its volume",
    "socket-no-inodes",
)
FLUX_UNEXPLAINED_STALE_CLAIM = _(
    "FLUX_UNEXPLAINED_STALE_CLAIM", H, "stale claims nothing in the logs explains"
)

FLUX_REGISTRATION_REJECTED = _(
    "FLUX_REGISTRATION_REJECTED", A, "registration refused", "registration-refused"
)
FLUX_BOOTSTRAP_TOKEN_INVALID = _(
    "FLUX_BOOTSTRAP_TOKEN_INVALID", A, "registration token refused (403)", "token-invalid"
)
FLUX_SESSION_REREGISTER_LOOP = _(
    "FLUX_SESSION_REREGISTER_LOOP", A, "re-registers after 'Session token rejected'"
)
FLUX_WORKER_REGISTERED = _("FLUX_WORKER_REGISTERED", A, "worker registered")
FLUX_WORKERS_REGISTERED = _("FLUX_WORKERS_REGISTERED", A, "workers register with the server")

FLUX_EXECUTION_PLACED = _("FLUX_EXECUTION_PLACED", P, "execution held by a worker")
FLUX_ELIGIBLE_WORKERS = _("FLUX_ELIGIBLE_WORKERS", P, "workers that may run it are available")
FLUX_ELIGIBLE_WORKERS_UNAVAILABLE = _(
    "FLUX_ELIGIBLE_WORKERS_UNAVAILABLE",
    P,
    "only unavailable workers meet its requirements",
    "eligible-unavailable",
)
FLUX_NO_ELIGIBLE_WORKER = _(
    "FLUX_NO_ELIGIBLE_WORKER", P, "no worker meets its requirements", "no-eligible-worker"
)
FLUX_PARK_TIMEOUT = _("FLUX_PARK_TIMEOUT", P, "park TTL expired before a claim", "park-timeout")

FLUX_NO_DEPLOYMENT_STEP = _("FLUX_NO_DEPLOYMENT_STEP", D, "Flux has no deployment step")
FLUX_NO_REQUIREMENTS_REPORT = _(
    "FLUX_NO_REQUIREMENTS_REPORT", R, "Flux has no runtime-requirements report"
)

FLUX_WORKER_SATURATED = _(
    "FLUX_WORKER_SATURATED", C, "worker full, executions wait for it", "saturated"
)
FLUX_SLOTS_AVAILABLE = _("FLUX_SLOTS_AVAILABLE", C, "worker has free slots")
FLUX_SLOTS_SATURATED = _("FLUX_SLOTS_SATURATED", C, "every eligible worker is full", "saturated")
FLUX_DISPATCH_PENDING = _("FLUX_DISPATCH_PENDING", C, "unassigned though a worker could take it")
FLUX_EVENT_LOOP_STARVATION = _(
    "FLUX_EVENT_LOOP_STARVATION", C, "was unhealthy (starved) and recovered", "unhealthy"
)
FLUX_RELEASE_STORM = _("FLUX_RELEASE_STORM", C, "execution handed back again and again")
FLUX_GAUGE_UNTRUSTED = _("FLUX_GAUGE_UNTRUSTED", C, "server gauges disagree with the counts")
FLUX_WORKER_DISK_NEARLY_FULL = _(
    "FLUX_WORKER_DISK_NEARLY_FULL",
    C,
    "volume under the worker's home full or nearly (blocks or inodes)",
    "disk-nearly-full",
)
FLUX_ELIGIBLE_VOLUMES_FULL = _(
    "FLUX_ELIGIBLE_VOLUMES_FULL",
    (P, C),
    "waiting execution: every worker that may take it has a full state volume",
    "volumes-full",
)

FLUX_LAST_RUN_SUCCEEDED = _("FLUX_LAST_RUN_SUCCEEDED", OUT, "last run completed")
# "outcome" names the generic path, in Flux's words (``recovery_paths.OUTCOME``, which the rule
# attaches): read the execution's error, fix it, run the workflow again, see it COMPLETED.
FLUX_LAST_RUN_FAILED = _("FLUX_LAST_RUN_FAILED", OUT, "last run failed", "outcome")
FLUX_LAST_RUN_INCONCLUSIVE = _("FLUX_LAST_RUN_INCONCLUSIVE", OUT, "last run was cancelled")
FLUX_EXECUTION_FAILED = _("FLUX_EXECUTION_FAILED", OUT, "execution failed", "outcome")
FLUX_WORKER_DISK_FULL = _(
    "FLUX_WORKER_DISK_FULL", OUT, "run failed on a full disk (ENOSPC) of its worker", "disk-full"
)
FLUX_NO_FINISHED_RUN = _("FLUX_NO_FINISHED_RUN", OUT, "no finished run to judge by")
FLUX_TERMINAL_CHECKPOINT_LOST = _(
    "FLUX_TERMINAL_CHECKPOINT_LOST", OUT, "final result never delivered; run requeued"
)
