"""The generic finding codes: every code the analyzer's own rules and engine report.

Declared once here (rungs, title, recovery path id), used as constants by the
rules in :mod:`bundler.analyze.rules` and by product rules that report a
generic finding. The recovery id names a path of :mod:`bundler.analyze.recovery`;
the engine attaches that text to a failing or warning finding that carries none.
A product's own codes are in ``products/<name>/codes.py``. One family is open:
a runtime-requirements blocker is reported under the product's own blocker code
(e.g. ``CREDENTIAL_NOT_BOUND``), upper snake case, with the prerequisites path.
"""

from __future__ import annotations

from schemas import Layer
from schemas.evidence import (
    AuthorizationEvidence,
    DeploymentEvidence,
    EvidenceDoc,
    OutcomeEvidence,
    RequirementsEvidence,
    ServerEvidence,
    WorkersEvidence,
)

from .catalog import Catalog

GENERIC = Catalog("generic")
_ = GENERIC.declare
# Shorthands, so each declaration reads on one line: `_(code, rungs, title, recovery id)`.
S, H, A, P = Layer.SERVER, Layer.HEARTBEAT, Layer.AUTHORIZATION, Layer.PLACEMENT
D, R, C, OUT = Layer.DEPLOYMENT, Layer.REQUIREMENTS, Layer.CAPACITY, Layer.OUTCOME
FLEET: tuple[Layer, ...] = ()

# -- server ---------------------------------------------------------------------------------------
SERVER_EVIDENCE_MISSING = _("SERVER_EVIDENCE_MISSING", S, "no server evidence in the bundle")
TLS_NOT_TRUSTED = _(
    "TLS_NOT_TRUSTED", S, "doctor did not trust the server's certificate", "server-tls"
)
SERVER_UNREACHABLE = _(
    "SERVER_UNREACHABLE", S, "control plane did not answer", "server-reachability"
)
SERVER_REACHABILITY_UNKNOWN = _(
    "SERVER_REACHABILITY_UNKNOWN", S, "bundle does not say whether the server answered"
)
TLS_INSECURE_IN_USE = _(
    "TLS_INSECURE_IN_USE", S, "TLS verification disabled for collection", "server-tls"
)
SERVER_REACHABLE = _("SERVER_REACHABLE", S, "control plane answered")
API_TOKEN_REJECTED = _("API_TOKEN_REJECTED", S, "API token rejected", "api-access")
API_TOKEN_MISSING = _("API_TOKEN_MISSING", S, "API token required", "api-access")
SERVER_UNHEALTHY = _("SERVER_UNHEALTHY", S, "server reports unhealthy", "server-health")
SERVER_NOT_READY = _("SERVER_NOT_READY", S, "server reports not ready", "server-health")
SERVER_DATABASE_DOWN = _(
    "SERVER_DATABASE_DOWN", S, "server cannot reach its database", "server-health"
)
SERVER_ERRORS = _("SERVER_ERRORS", S, "requests got HTTP 5xx", "server-health")
SERVER_HEALTH_UNKNOWN = _("SERVER_HEALTH_UNKNOWN", S, "server health not collected")
SERVER_HEALTHY = _("SERVER_HEALTHY", S, "server reports healthy")
LICENSE_EXPIRED_OR_INVALID = _(
    "LICENSE_EXPIRED_OR_INVALID", (S, A), "license expired or invalid", "license"
)
LICENSE_EXPIRING = _("LICENSE_EXPIRING", S, "license expires soon", "license")
STORAGE_PRESSURE = _("STORAGE_PRESSURE", S, "server storage nearly full", "server-health")

# -- heartbeat ------------------------------------------------------------------------------------
WORKERS_EVIDENCE_MISSING = _("WORKERS_EVIDENCE_MISSING", (H, P), "no worker list in the bundle")
WORKER_NOT_IN_EVIDENCE = _(
    "WORKER_NOT_IN_EVIDENCE", (H, P, C), "worker absent from an incomplete worker list"
)
WORKER_UNKNOWN_TO_SERVER = _(
    "WORKER_UNKNOWN_TO_SERVER", H, "control plane does not know the worker", "heartbeat"
)
WORKER_CONNECTION_UNKNOWN = _(
    "WORKER_CONNECTION_UNKNOWN", H, "bundle does not say whether the worker is connected"
)
WORKER_HEARTBEAT_UNDATED = _(
    "WORKER_HEARTBEAT_UNDATED", H, "worker listed online, but the bundle has no heartbeat time"
)
WORKER_HEARTBEAT_AFTER_COLLECTION = _(
    "WORKER_HEARTBEAT_AFTER_COLLECTION", H, "last heartbeat dated after collection: clocks disagree"
)
WORKER_RECORDS_CONFLICT = _(
    "WORKER_RECORDS_CONFLICT",
    (H, A, P, D, R, C, OUT),
    "worker listed more than once, its records disagree on what the rung reads",
)
EVIDENCE_RECORDS_CONFLICT = _(
    "EVIDENCE_RECORDS_CONFLICT",
    (H, A, P, D, R, C, OUT),
    "placement, deployment, requirements, local-state or job entry listed more than once, "
    "its records disagree on what the rung reads",
)
WORKERS_ONLINE = _("WORKERS_ONLINE", H, "workers online")
WORKERS_EVIDENCE_INCOMPLETE = _(
    "WORKERS_EVIDENCE_INCOMPLETE", (H, P), "no online or matching worker in an incomplete list"
)
NO_WORKERS_ONLINE = _("NO_WORKERS_ONLINE", H, "no worker is online", "heartbeat")
WORKER_HEARTBEAT_STALE = _("WORKER_HEARTBEAT_STALE", H, "heartbeats stopped (stale)", "heartbeat")
WORKER_HEARTBEAT_LOST = _("WORKER_HEARTBEAT_LOST", H, "silent past its grace period", "heartbeat")
WORKER_OFFLINE = _("WORKER_OFFLINE", H, "worker offline", "heartbeat")
WORKER_NEVER_CONNECTED = _("WORKER_NEVER_CONNECTED", H, "worker never connected", "heartbeat")
WORKER_REMOVED = _("WORKER_REMOVED", H, "worker removed from the control plane", "replace")
WORKER_DEPARTED = _("WORKER_DEPARTED", H, "record of a worker that left; nothing depends on it")
WORKER_DEPENDENTS_UNKNOWN = _(
    "WORKER_DEPENDENTS_UNKNOWN",
    H,
    "worker offline; whether a job depends on it is unknown: job evidence incomplete",
)
WORKER_OFFLINE_IDLE = _(
    "WORKER_OFFLINE_IDLE", H, "worker offline, no unfinished job depends on it", "remove"
)
WORKER_ONLINE = _("WORKER_ONLINE", H, "worker online with a fresh heartbeat")
WORKER_UNHEALTHY = _(
    "WORKER_UNHEALTHY", (H, C), "worker reports itself unhealthy, declines new work", "capacity"
)
WORKER_PAUSED = _("WORKER_PAUSED", (H, C), "worker paused by an operator", "capacity")
WORKER_DRAINING = _("WORKER_DRAINING", (H, C), "worker draining", "capacity")
HEARTBEAT_FLAPPING = _(
    "HEARTBEAT_FLAPPING", H, "online now, but drops out again and again", "heartbeat"
)
CLOCK_SKEW = _(
    "CLOCK_SKEW", H, "a host's clock off beyond its uncertainty (also between hosts)", "heartbeat"
)
TIME_NOT_SYNCHRONIZED = _(
    "TIME_NOT_SYNCHRONIZED", H, "host does not synchronize its clock", "heartbeat"
)
STALE_CONTROL_SOCKET = _(
    "STALE_CONTROL_SOCKET", H, "worker's control socket refuses connections", "heartbeat"
)

# -- authorization --------------------------------------------------------------------------------
AUTHORIZATION_EVIDENCE_MISSING = _(
    "AUTHORIZATION_EVIDENCE_MISSING", A, "no runtime-authorization evidence"
)
AUTHORIZATION_NOT_APPLICABLE = _(
    "AUTHORIZATION_NOT_APPLICABLE", A, "no runtime authorization needed"
)
NO_TARGET_WORKER = _("NO_TARGET_WORKER", (A, C), "no worker selected: judged per worker")
BUILTIN_WORKER = _("BUILTIN_WORKER", A, "built-in worker: no lease needed")
AUTHORIZATION_RECORD_MISSING = _(
    "AUTHORIZATION_RECORD_MISSING", A, "no authorization record for the worker"
)
COMMUNITY_EDITION_NO_EXTERNAL_WORKERS = _(
    "COMMUNITY_EDITION_NO_EXTERNAL_WORKERS", A, "edition allows no external workers", "license"
)
AUTHORIZATION_DENIED = _("AUTHORIZATION_DENIED", A, "server denies runtime authorization", "lease")
ENROLLMENT_KEY_STILL_CONFIGURED = _(
    "ENROLLMENT_KEY_STILL_CONFIGURED", A, "enrollment key left configured", "registration"
)
AUTHORIZATION_UNDECIDED = _(
    "AUTHORIZATION_UNDECIDED", A, "bundle does not say whether the worker is authorized"
)
AUTHORIZED = _("AUTHORIZED", A, "worker holds valid authorization")
LEASE_EXPIRED = _("LEASE_EXPIRED", A, "auth lease expired", "lease")
LEASE_EXPIRY_ZERO_TIME = _(
    "LEASE_EXPIRY_ZERO_TIME", A, "auth lease expires at the zero time: no expiry recorded"
)
LEASE_NOT_YET_VALID = _("LEASE_NOT_YET_VALID", A, "auth lease issued in the future", "lease")
LEASE_SIGNATURE_INVALID = _(
    "LEASE_SIGNATURE_INVALID", A, "auth lease signature does not verify", "lease"
)
LEASE_RENEWAL_FAILING = _("LEASE_RENEWAL_FAILING", A, "lease renewals failing", "lease")
REGISTRATION_REJECTED = _(
    "REGISTRATION_REJECTED", A, "registration refused (HTTP 401/403)", "registration"
)
CLOCK_SKEW_EXCEEDS_LEASE_TOLERANCE = _(
    "CLOCK_SKEW_EXCEEDS_LEASE_TOLERANCE", A, "clock skew beyond the lease tolerance", "lease"
)
AUTH_CACHE_CORRUPT = _("AUTH_CACHE_CORRUPT", A, "worker's auth cache corrupt", "local-state")

# -- placement ------------------------------------------------------------------------------------
NO_TARGET_JOB = _("NO_TARGET_JOB", (P, D, R, OUT), "no job selected: judged per job")
JOB_ASSIGNED = _("JOB_ASSIGNED", P, "job assigned to the worker")
NOT_INTENDED_FOR_WORKER = _(
    "NOT_INTENDED_FOR_WORKER", P, "job meant for another worker", "placement"
)
JOB_REQUIREMENTS_MISSING = _(
    "JOB_REQUIREMENTS_MISSING", P, "bundle does not say what the job requires"
)
PINNED_WORKER_UNKNOWN = _(
    "PINNED_WORKER_UNKNOWN", P, "job pinned to a worker the server does not know", "placement"
)
PLACEMENT_MATCHED = _("PLACEMENT_MATCHED", P, "a worker matches the job's placement")
WORKER_NOT_ELIGIBLE = _("WORKER_NOT_ELIGIBLE", P, "job not meant for this worker", "placement")
PLACEMENT_UNCERTAIN = _("PLACEMENT_UNCERTAIN", P, "cannot tell whether the worker fits")
NO_MATCHING_WORKER = _("NO_MATCHING_WORKER", P, "no worker matches the job", "placement")
JOB_PLACED = _("JOB_PLACED", P, "product placed the job")
JOB_ELIGIBLE = _("JOB_ELIGIBLE", P, "worker eligible; job waits to be placed")
PLACEMENT_NOT_EVALUATED = _("PLACEMENT_NOT_EVALUATED", P, "product did not evaluate the worker")
NO_ELIGIBLE_WORKERS = _("NO_ELIGIBLE_WORKERS", P, "no worker is eligible", "placement")
REPLICAS_UNSATISFIED = _(
    "REPLICAS_UNSATISFIED", P, "fewer replicas placed than wanted", "placement"
)
PLACEMENT_SILENT_ON_WORKER = _(
    "PLACEMENT_SILENT_ON_WORKER", P, "product's placement does not mention the worker"
)

# -- deployment -----------------------------------------------------------------------------------
DEPLOYMENT_EVIDENCE_MISSING = _("DEPLOYMENT_EVIDENCE_MISSING", D, "no deployment evidence")
DEPLOYMENT_NOT_APPLICABLE = _("DEPLOYMENT_NOT_APPLICABLE", D, "product has no deployment step")
JOB_NOT_DEPLOYED = _("JOB_NOT_DEPLOYED", D, "job not deployed (there)", "deployment")
DEPLOYMENT_EVIDENCE_UNAVAILABLE = _(
    "DEPLOYMENT_EVIDENCE_UNAVAILABLE", D, "deployment records could not be read"
)
DEPLOYMENT_RECORD_MISSING = _(
    "DEPLOYMENT_RECORD_MISSING", D, "no deployment record in incomplete evidence"
)
DEPLOYMENT_RUNNABLE = _("DEPLOYMENT_RUNNABLE", D, "deployed and runnable")
RENDER_CONTEXT_MISSING = _(
    "RENDER_CONTEXT_MISSING", D, "context keys resolve at no scope", "deployment"
)
BUNDLE_SIGNATURE_INVALID = _(
    "BUNDLE_SIGNATURE_INVALID", D, "job bundle signature does not verify", "deployment"
)
DEPLOYMENT_FAILED = _("DEPLOYMENT_FAILED", D, "deployment failed", "deployment")
DEPLOYMENT_IN_PROGRESS = _("DEPLOYMENT_IN_PROGRESS", D, "deployment not yet runnable", "deployment")
DEPLOYMENT_STATE_UNKNOWN = _("DEPLOYMENT_STATE_UNKNOWN", D, "deployment in an unknown state")
DEPLOYMENT_DRIFTED = _("DEPLOYMENT_DRIFTED", D, "runs another revision than intended", "deployment")
DRIFT_DETECTED = _("DRIFT_DETECTED", D, "reconciliation drift on the deployment", "deployment")
LOCAL_STATE_CORRUPT = _(
    "LOCAL_STATE_CORRUPT", (D, H), "worker's local state corrupt", "local-state"
)
LOCAL_STATE_UNREADABLE = _(
    "LOCAL_STATE_UNREADABLE", (D, A), "worker's local state could not be checked", "recollect"
)

# -- runtime requirements -------------------------------------------------------------------------
REQUIREMENTS_EVIDENCE_MISSING = _(
    "REQUIREMENTS_EVIDENCE_MISSING", R, "no runtime-requirements evidence"
)
REQUIREMENTS_NOT_APPLICABLE = _(
    "REQUIREMENTS_NOT_APPLICABLE", R, "product has no runtime-requirements report"
)
REQUIREMENTS_REPORT_MISSING = _(
    "REQUIREMENTS_REPORT_MISSING", R, "no runtime-requirements report for the job"
)
REQUIREMENTS_SATISFIED = _("REQUIREMENTS_SATISFIED", R, "no runtime-requirements blockers")
REQUIREMENT_NOT_SATISFIED = _(
    "REQUIREMENT_NOT_SATISFIED", R, "a requirement is missing or denied", "prerequisites"
)
REQUIREMENT_UNKNOWN = _("REQUIREMENT_UNKNOWN", R, "a requirement could not be checked")
TRUST_ROOT_PROBLEM = _("TRUST_ROOT_PROBLEM", R, "a trust-root blocker", "trust-root")
RUNTIME_REQUIREMENTS_BLOCKED = _(
    "RUNTIME_REQUIREMENTS_BLOCKED", R, "a blocker without a code of its own", "prerequisites"
)

# -- capacity -------------------------------------------------------------------------------------
CAPACITY_EVIDENCE_MISSING = _(
    "CAPACITY_EVIDENCE_MISSING", C, "no capacity report or figures for the worker"
)
CAPACITY_ADEQUATE = _("CAPACITY_ADEQUATE", C, "worker has room for the job")
SLOTS_SATURATED = _("SLOTS_SATURATED", C, "every slot busy", "capacity")
RESOURCES_INSUFFICIENT = _(
    "RESOURCES_INSUFFICIENT", C, "a resource below the job's request", "capacity"
)
CAPABILITY_MISSING = _("CAPABILITY_MISSING", C, "worker lacks a component capability", "capacity")
CPU_INSUFFICIENT = _("CPU_INSUFFICIENT", C, "worker's CPU unknown for the job's request")
MEMORY_INSUFFICIENT = _("MEMORY_INSUFFICIENT", C, "worker's memory unknown for the request")
GPU_INSUFFICIENT = _("GPU_INSUFFICIENT", C, "worker's GPUs unknown for the job's request")
DISK_INSUFFICIENT = _("DISK_INSUFFICIENT", C, "worker's disk unknown for the job's request")
CPU_SATURATED = _("CPU_SATURATED", C, "CPU busy above the threshold", "capacity")
MEMORY_PRESSURE = _("MEMORY_PRESSURE", C, "memory used above the threshold", "capacity")
QUEUE_BACKLOG = _("QUEUE_BACKLOG", C, "queue backlog above the threshold", "capacity")
BACKPRESSURE = _("BACKPRESSURE", C, "worker reports backpressure", "capacity")

# -- outcome --------------------------------------------------------------------------------------
OUTCOME_EVIDENCE_MISSING = _("OUTCOME_EVIDENCE_MISSING", OUT, "no outcome evidence")
CANARY_PASSED = _("CANARY_PASSED", OUT, "canary or last run succeeded")
CANARY_AGE_UNJUDGED = _(
    "CANARY_AGE_UNJUDGED", OUT, "cannot tell whether the canary ran after the deployment"
)
RUN_ORDER_UNDATED = _(
    "RUN_ORDER_UNDATED", OUT, "cannot tell which run is the latest: an undated one ended otherwise"
)
RUN_ORDER_TIED = _(
    "RUN_ORDER_TIED",
    OUT,
    "cannot tell which run is the latest: runs that ended at one instant are judged otherwise",
)
RUN_ORDER_CLOCK_SKEW = _(
    "RUN_ORDER_CLOCK_SKEW",
    OUT,
    "cannot tell which run is the latest: a worker's clock is off by too uncertain an amount",
)
JOB_RUN_ORDER_UNDATED = _(
    "JOB_RUN_ORDER_UNDATED",
    OUT,
    "cannot tell whether a failed run is current: it or a success of its job is undated",
)
CANARY_AFTER_COLLECTION = _(
    "CANARY_AFTER_COLLECTION", OUT, "canary dated after collection: clocks disagree"
)
RECEIPT_AFTER_COLLECTION = _(
    "RECEIPT_AFTER_COLLECTION", OUT, "receipt dated after collection: clocks disagree"
)
CANARY_PREDATES_DEPLOYMENT = _(
    "CANARY_PREDATES_DEPLOYMENT", OUT, "canary or receipt older than the deployment", "outcome"
)
JOB_RUN_FAILED = _("JOB_RUN_FAILED", OUT, "job's run failed", "outcome")
LAST_RUN_COMPLETED = _("LAST_RUN_COMPLETED", OUT, "job's run completed")
NO_FINISHED_RUN = _("NO_FINISHED_RUN", OUT, "no canary or finished run")
CANARY_FAILED = _("CANARY_FAILED", OUT, "canary failed", "outcome")
CANARY_TIMED_OUT = _("CANARY_TIMED_OUT", OUT, "canary timed out", "outcome")
CANARY_NOT_CONCLUSIVE = _("CANARY_NOT_CONCLUSIVE", OUT, "canary has no verdict yet")
CANARY_RECORDS_CONFLICT = _(
    "CANARY_RECORDS_CONFLICT", OUT, "one run listed more than once, its records disagree"
)
CANARY_NO_OUTPUT = _("CANARY_NO_OUTPUT", OUT, "canary read events and wrote none", "outcome")
RECEIPT_NONCE_MISMATCH = _(
    "RECEIPT_NONCE_MISMATCH", OUT, "receipt carries another run's nonce", "outcome"
)
RECEIPT_MISSING = _("RECEIPT_MISSING", OUT, "required external receipt never came", "outcome")
RECEIPTS_UNREAD = _(
    "RECEIPTS_UNREAD", OUT, "required receipt not found, but not every receipt was read"
)
RECEIPT_ACCEPTED_ONLY = _(
    "RECEIPT_ACCEPTED_ONLY", OUT, "destination only accepted the data", "outcome"
)

# -- the engine: any rung, or the bundle as a whole -----------------------------------------------
NO_EVIDENCE = _("NO_EVIDENCE", tuple(Layer), "no rule could answer the rung: unknown")
RULE_ERROR = _("RULE_ERROR", tuple(Layer), "a rule failed (a bundler bug): unknown")
PROFILE_UNAVAILABLE = _("PROFILE_UNAVAILABLE", FLEET, "bundle's profile not in this bundler")
LOG_PARSER_ERROR = _("LOG_PARSER_ERROR", FLEET, "the product's log parser failed")
TIMELINE_SAMPLED = _("TIMELINE_SAMPLED", FLEET, "huge logs: timeline kept a sample")
PROFILE_RULES_ERROR = _("PROFILE_RULES_ERROR", FLEET, "product rules could not be loaded")
TARGETS_TRUNCATED = _("TARGETS_TRUNCATED", FLEET, "more targets than the report shows")
HOST_WARNINGS = _(
    "HOST_WARNINGS", FLEET, "workers whose host warns (clock, disk, socket) outside the ladders"
)
EVIDENCE_INCOMPLETE = _("EVIDENCE_INCOMPLETE", FLEET, "an evidence document is incomplete")
BUNDLE_NOT_VERIFIED = _(
    "BUNDLE_NOT_VERIFIED", FLEET, "the bundle's integrity is not verified: no verdict of health"
)
TARGETS_INCOMPLETE = _(
    "TARGETS_INCOMPLETE", FLEET, "the worker or job list is incomplete: targets may be missing"
)
EVIDENCE_INVALID = _("EVIDENCE_INVALID", FLEET, "an evidence document is unusable", "recollect")
EVIDENCE_MISSING = _("EVIDENCE_MISSING", FLEET, "a core evidence document is absent", "recollect")
EVIDENCE_OVER_LIMIT = _(
    "EVIDENCE_OVER_LIMIT", FLEET, "a member is over a reader's limit: not read", "reader-limit"
)
EVIDENCE_REDERIVED = _(
    "EVIDENCE_REDERIVED", FLEET, "evidence re-derived from raw/ with this bundler's profile"
)
EVIDENCE_STORED = _("EVIDENCE_STORED", FLEET, "the bundle's stored evidence/ was analyzed")
NO_LADDER = _("NO_LADDER", FLEET, "doctor judged no ladder (interrupted, hosts only, or failed)")
RAW_RECORDS_INVALID = _(
    "RAW_RECORDS_INVALID", FLEET, "raw responses did not match the product's shape"
)

MISSING_DOCUMENTS: dict[type[EvidenceDoc], tuple[str, str]] = {
    ServerEvidence: (
        SERVER_EVIDENCE_MISSING,
        "No server evidence in the bundle (evidence/server.json).",
    ),
    WorkersEvidence: (
        WORKERS_EVIDENCE_MISSING,
        "No worker list in the bundle (evidence/workers.json).",
    ),
    AuthorizationEvidence: (
        AUTHORIZATION_EVIDENCE_MISSING,
        "No runtime-authorization evidence in the bundle (evidence/authorization.json).",
    ),
    DeploymentEvidence: (DEPLOYMENT_EVIDENCE_MISSING, "No deployment evidence in the bundle."),
    RequirementsEvidence: (
        REQUIREMENTS_EVIDENCE_MISSING,
        "No runtime-requirements evidence in the bundle.",
    ),
    OutcomeEvidence: (
        OUTCOME_EVIDENCE_MISSING,
        "The bundle has no outcome document (canaries, receipts, last runs): whether the "
        "job produced its result is unknown.",
    ),
}
"""What the engine answers for a rule whose needed document is absent or unusable
(``@rule(needs=...)``): the same code and words whichever rule needed it, so the
rung shows it once."""
