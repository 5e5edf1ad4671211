"""The timeline's vocabulary: which log event kinds it draws, as what, and what they mean.

Kinds are the shared timeline's (``TimelineEvent.kind``, from each product's
log parser); a kind not listed here is still drawn, as "other". A kind that
changes the worker's state (connected, stale, offline, ...) also ends one
state bar and starts the next.
"""

from __future__ import annotations

# kind -> (category, state the worker is in after it, or None when it does not change state)
KINDS: dict[str, tuple[str, str | None]] = {
    "starting": ("registration", None),
    "started": ("registration", "up"),
    "registering": ("registration", None),
    "registered": ("registration", "up"),
    "connected": ("registration", "up"),
    "connection_established": ("registration", "up"),
    "stale": ("stale", "stale"),
    "evicted": ("evicted", "down"),
    "disconnected": ("evicted", "down"),
    "sse_closed_by_reaper": ("evicted", None),
    "pruned": ("evicted", "down"),
    "sigterm": ("evicted", None),
    "shutdown": ("evicted", "down"),
    "recovered": ("reconnect", "up"),
    "reconnecting": ("reconnect", None),
    "sse_closed": ("reconnect", None),
    "sse_error": ("reconnect", None),
    "released_reconnecting": ("reconnect", None),
    "connection_lost": ("server_down", "lost"),
    "unhealthy": ("unhealthy", "unhealthy"),
    "healthy": ("healthy", "up"),
    "paused": ("unhealthy", "paused"),
    "resumed": ("healthy", "up"),
    "claimed": ("claim", None),
    "unclaimed": ("unclaim", None),
    "released": ("unclaim", None),
    "claim_refused": ("stale_claim", None),
    "stale_claim": ("stale_claim", None),
    "stale_claim_abort": ("stale_claim", None),
    "superseded_dispatch": ("stale_claim", None),
    "release_fenced": ("stale_claim", None),
    "auth_rejected": ("auth", None),
    "session_rejected": ("auth", None),
    "lease_renewed": ("healthy", None),
    "state_corrupt": ("auth", None),
    "server_stopping": ("server_down", None),
    "server_started": ("registration", None),
}
"""Event kinds the timeline knows; any other kind is drawn as a plain 'other' mark."""

CATEGORIES: dict[str, str] = {
    "registration": "registration, connection",
    "heartbeat": "last heartbeat (evidence/workers.json)",
    "stale": "STALE (missed heartbeats)",
    "evicted": "evicted, disconnected, stopped",
    "reconnect": "reconnects",
    "server_down": "server unreachable / stopping",
    "unhealthy": "unhealthy, paused",
    "healthy": "healthy again, resumed, lease renewed",
    "claim": "claims",
    "unclaim": "unclaims, releases",
    "stale_claim": "stale-claim aborts, refused claims",
    "execution": "execution state changes",
    "auth": "authorization refused, corrupt state",
    "other": "other log events",
}
"""Legend: category -> what it means (one colour each in the stylesheet)."""

STATES = {
    "up": "connected",
    "stale": "stale",
    "down": "offline",
    "lost": "cannot reach server",
    "unhealthy": "unhealthy",
    "paused": "paused",
}


def category(kind: str) -> str:
    if kind in KINDS:
        return KINDS[kind][0]
    return "execution" if kind.startswith("execution_") else "other"
