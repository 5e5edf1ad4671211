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

from schemas import CollectorKind, CollectorOutcome, CollectorStatus, HttpExchange, Manifest

from ..products.base import Profile
from ..source import MemberSource
from .reconstruct import reconstruct_exchanges

QueryKey = tuple[tuple[str, str], ...]
_HTTP_STATUS = re.compile(r"^HTTP (\d{3})\b")


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
    )


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
