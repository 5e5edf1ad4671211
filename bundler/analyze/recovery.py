"""Recovery advice, written once and referenced by finding codes.

The *Worker Recovery and Serviceability* guide ("Common recovery paths", "Recovery
acceptance") is the source of the facts; the wording is ours, and the texts themselves
live in :mod:`bundler.analyze.recovery_paths`. Rules do not carry advice themselves: the
engine attaches :func:`recovery_for` and :func:`acceptance_for` to every finding whose
code is listed in :data:`CODE_PATHS`, so the same failure always reads the same way
whichever rule (generic or product) found it. A product may still set
``Finding.recovery`` explicitly when it knows better.
"""

from __future__ import annotations

from collections.abc import Mapping

from schemas import Layer, Recovery

from .recovery_paths import PATHS

ACCEPTANCE_CHECKS: dict[str, tuple[Layer, ...]] = {
    "recent heartbeat and system information": (Layer.HEARTBEAT,),
    "valid runtime authorization (external workers)": (Layer.AUTHORIZATION,),
    "exact intended placement and deployment identity": (Layer.PLACEMENT, Layer.DEPLOYMENT),
    "no unresolved runtime-requirements blockers": (Layer.REQUIREMENTS,),
    "adequate measured capacity for the target job": (Layer.CAPACITY,),
    "successful bounded canary": (Layer.OUTCOME,),
    "external receipt where the job has an external effect": (Layer.OUTCOME,),
}
"""The guide's recovery acceptance list, each check with the rungs that prove it."""

_CHECKS = list(ACCEPTANCE_CHECKS)

_PATH_CODES: dict[str, tuple[str, ...]] = {
    "connectivity": ("SERVER_UNREACHABLE", "TLS_NOT_TRUSTED", "TLS_INSECURE_IN_USE"),
    "server-health": (
        "SERVER_UNHEALTHY",
        "SERVER_NOT_READY",
        "SERVER_DATABASE_DOWN",
        "SERVER_ERRORS",
        "STORAGE_PRESSURE",
    ),
    "api-access": ("API_TOKEN_REJECTED", "API_TOKEN_MISSING"),
    "heartbeat": (
        "WORKER_HEARTBEAT_STALE",
        "WORKER_HEARTBEAT_LOST",
        "WORKER_OFFLINE",
        "WORKER_NEVER_CONNECTED",
        "WORKER_UNKNOWN_TO_SERVER",
        "NO_WORKERS_ONLINE",
        "HEARTBEAT_FLAPPING",
        "CLOCK_SKEW",
        "TIME_NOT_SYNCHRONIZED",
        "STALE_CONTROL_SOCKET",
    ),
    "license": (
        "LICENSE_EXPIRED_OR_INVALID",
        "COMMUNITY_EDITION_NO_EXTERNAL_WORKERS",
        "LICENSE_EXPIRING",
    ),
    "lease": (
        "LEASE_EXPIRED",
        "LEASE_NOT_YET_VALID",
        "LEASE_SIGNATURE_INVALID",
        "LEASE_RENEWAL_FAILING",
        "AUTHORIZATION_DENIED",
        "CLOCK_SKEW_EXCEEDS_LEASE_TOLERANCE",
    ),
    "registration": ("REGISTRATION_REJECTED", "ENROLLMENT_KEY_STILL_CONFIGURED"),
    "placement": (
        "NO_MATCHING_WORKER",
        "NOT_INTENDED_FOR_WORKER",
        "WORKER_NOT_ELIGIBLE",
        "NO_ELIGIBLE_WORKERS",
        "REPLICAS_UNSATISFIED",
        "PINNED_WORKER_UNKNOWN",
    ),
    "deployment": (
        "DEPLOYMENT_FAILED",
        "JOB_NOT_DEPLOYED",
        "RENDER_CONTEXT_MISSING",
        "BUNDLE_SIGNATURE_INVALID",
        "DEPLOYMENT_IN_PROGRESS",
        "DRIFT_DETECTED",
        "DEPLOYMENT_DRIFTED",
    ),
    "prerequisites": ("RUNTIME_REQUIREMENTS_BLOCKED", "REQUIREMENT_NOT_SATISFIED"),
    "trust-root": ("TRUST_ROOT_PROBLEM",),
    "capacity": (
        "SLOTS_SATURATED",
        "RESOURCES_INSUFFICIENT",
        "CAPABILITY_MISSING",
        "WORKER_UNHEALTHY",
        "WORKER_PAUSED",
        "WORKER_DRAINING",
        "CPU_SATURATED",
        "MEMORY_PRESSURE",
        "DISK_PRESSURE",
        "QUEUE_BACKLOG",
        "BACKPRESSURE",
    ),
    "outcome": (
        "CANARY_FAILED",
        "CANARY_TIMED_OUT",
        "CANARY_NO_OUTPUT",
        "RECEIPT_MISSING",
        "RECEIPT_ACCEPTED_ONLY",
        "RECEIPT_NONCE_MISMATCH",
        "JOB_RUN_FAILED",
        "CANARY_PREDATES_DEPLOYMENT",
    ),
    "local-state": ("LOCAL_STATE_CORRUPT", "AUTH_CACHE_CORRUPT"),
    "replace": ("WORKER_REMOVED",),
    "remove": ("WORKER_OFFLINE_IDLE",),
    "recollect": ("LOCAL_STATE_UNREADABLE", "EVIDENCE_INVALID", "EVIDENCE_MISSING"),
}

CODE_PATHS: dict[str, str] = {code: path for path, codes in _PATH_CODES.items() for code in codes}
"""Finding code -> recovery path id."""

_ACCEPTANCE_BY_PATH: dict[str, list[str]] = {
    "connectivity": [_CHECKS[0]],
    "server-health": [_CHECKS[0]],
    "api-access": [],
    "heartbeat": [_CHECKS[0]],
    "license": [_CHECKS[1]],
    "lease": [_CHECKS[1]],
    "registration": [_CHECKS[0], _CHECKS[1]],
    "placement": [_CHECKS[2]],
    "deployment": [_CHECKS[2]],
    "prerequisites": [_CHECKS[3]],
    "trust-root": [_CHECKS[1], _CHECKS[3]],
    "capacity": [_CHECKS[4]],
    "outcome": [_CHECKS[5], _CHECKS[6]],
    "local-state": [_CHECKS[0], _CHECKS[1], _CHECKS[5]],
    "replace": _CHECKS,
    "remove": [],
    "recollect": [],
}


def recovery_for(code: str, product: Mapping[str, Recovery] | None = None) -> Recovery | None:
    """The recovery path for a finding code (the product's own text first), or None."""
    path = CODE_PATHS.get(code)
    if path is None:
        return None
    chosen = (product or {}).get(path) or PATHS[path]
    return chosen.model_copy(deep=True)


def acceptance_for(code: str) -> list[str]:
    """Acceptance checks that prove the recovery for ``code`` worked."""
    path = CODE_PATHS.get(code)
    return list(_ACCEPTANCE_BY_PATH.get(path, [])) if path else []
