"""What doctor asked the control plane and what it got back, one route per HTTP collector.

The manifest lists every HTTP collector; since ``CollectorOutcome.http`` exists
it records the exact path, query, status and content type. For older bundles
the request is rebuilt from the profile's plan (:mod:`.reconstruct`), and the
route says so (``exact=False``): its status is inferred, not recorded.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import parse_qsl, unquote

from schemas import (
    CollectorKind,
    CollectorOutcome,
    CollectorStatus,
    HttpExchange,
    Manifest,
    MemberEntry,
)

from ..products.base import Profile
from ..source import MemberSource
from .reconstruct import reconstruct_exchanges

QueryKey = tuple[tuple[str, str], ...]
_HTTP_STATUS = re.compile(r"^HTTP (\d{3})\b")
RESPONSES = "raw/http/"
"""Where a bundle keeps the control plane's answers (README, docs/architecture.md)."""


def route_key(path: str, query: str) -> tuple[str, QueryKey]:
    """How requests are matched: the decoded path, and the query's pairs in any order."""
    return unquote(path), tuple(sorted(parse_qsl(query, keep_blank_values=True)))


@dataclass(frozen=True)
class CapturedRoute:
    """One request doctor made, and what the bundle holds of its answer."""

    collector: str
    path: str
    query: str
    status: int | None
    """HTTP status the server gave; None when no response came (or it is unknown)."""
    content_type: str | None
    member: str | None
    """The bundle member holding the (redacted) body; None when none was kept."""
    outcome: CollectorStatus
    error: str | None
    exact: bool
    """False when the request was reconstructed from the plan (bundles before HttpExchange)."""
    truncated: bool = False
    body_problem: str | None = None
    """Why ``member`` is not this request's captured answer (never served), or None."""

    @property
    def key(self) -> tuple[str, QueryKey]:
        return route_key(self.path, self.query)

    @property
    def shown(self) -> str:
        return f"{self.path}?{self.query}" if self.query else self.path


def captured_routes(
    manifest: Manifest, source: MemberSource, profile: Profile | None
) -> list[CapturedRoute]:
    """Every HTTP collector of the bundle that can be matched to a request, in manifest order."""
    collectors = [c for c in manifest.collectors if c.kind is CollectorKind.HTTP]
    missing = [c for c in collectors if c.http is None]
    rebuilt = reconstruct_exchanges(missing, manifest, source, profile) if missing else {}
    routes: list[CapturedRoute] = []
    for outcome in collectors:
        exchange = outcome.http or rebuilt.get(outcome.id)
        if exchange is None:
            continue
        routes.append(_route(outcome, exchange, manifest, exact=outcome.http is not None))
    return routes


def _route(
    outcome: CollectorOutcome, exchange: HttpExchange, manifest: Manifest, *, exact: bool
) -> CapturedRoute:
    member = outcome.members[0] if outcome.members else None
    entry = manifest.member(member) if member else None
    status = exchange.status_code
    if status is None and not exact:
        status = _inferred_status(outcome, member)
    content_type = exchange.content_type or (entry.media_type if entry else None)
    return CapturedRoute(
        collector=outcome.id,
        path=exchange.path,
        query=exchange.query,
        status=status,
        content_type=content_type,
        member=member,
        outcome=outcome.status,
        error=outcome.error_message or outcome.note,
        exact=exact,
        truncated=bool(entry and entry.truncated),
        body_problem=_body_problem(outcome, member, entry),
    )


def _body_problem(
    outcome: CollectorOutcome, member: str | None, entry: MemberEntry | None
) -> str | None:
    """Why the member a collector names is not its captured answer, or None.

    Doctor names only the response it received, stored under ``raw/http/`` and listed
    in the manifest as that collector's. Anyone holding the password can edit the
    manifest, and serve sent whatever member it named as the API's answer, marked
    ``captured``: the manifest itself, the redaction report, evidence, a host's log, or
    another request's response. Such a route answers ``unsound`` instead, as one whose
    recorded path or status doctor could not have recorded does. A member the manifest
    does not list at all is left to the read, which says it is missing; one listed
    without a collector is taken as the one named (no bundler wrote such an entry, but
    nothing says whose else it is).
    """
    if member is None:
        return None
    inside = member.removeprefix(RESPONSES)
    if inside == member or any(part in ("", ".", "..") for part in inside.split("/")):
        return f"the recorded body member {member!r} is not a captured HTTP response ({RESPONSES})"
    if entry is not None and entry.collector not in (None, outcome.id):
        return (
            f"the recorded body member {member!r} is not this request's response "
            f"(the manifest lists it as made by {entry.collector!r})"
        )
    return None


def _inferred_status(outcome: CollectorOutcome, member: str | None) -> int | None:
    """An older bundle's status: 200 when a body was kept, else what the error message says."""
    match = _HTTP_STATUS.match(outcome.error_message or "")
    if match:
        return int(match.group(1))
    if member is not None and outcome.status is CollectorStatus.OK:
        return 200
    # An HTTP step that ran and was skipped got a 404 on an optional route (e.g. /metrics
    # with observability off); the read-only guard's refusals never sent a request.
    asked = outcome.attempts > 0 and not (outcome.note or "").startswith("refused by")
    if outcome.status is CollectorStatus.SKIPPED and asked:
        return 404
    return None
