"""What a worker's own log says of its runtime authorization, read from every copy of it.

The *Worker Recovery and Serviceability* guide: "If the UI or logs report
community_edition_no_external_workers or license_expired_or_invalid", restore the license.
Without a decision from the server, the latest refusal or lease renewal the worker logged
decides the rung, whichever copy of its log holds it (the host's, read over SSH, or the
lines the control plane's API returned: a bundle collected without SSH has only those).
Each copy's own latest statement is compared too: where the copies disagree the finding
says so and cites both, since one of them is behind (a log cut short, a copy fetched
earlier) and the engineer should know which line decided.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from schemas import Citation

from .. import codes
from ..api import RuleContext, RuleResult, Timeline, TimelineEvent
from ..logsource import copies, named, source_of
from ..worker_clock import described

STATEMENT_KINDS = ("auth_rejected", "lease_renewed")
"""The lines that say whether the worker is authorized: a refusal, or a renewed lease."""

NATIVE_CODES = {
    "community_edition_no_external_workers": (
        codes.COMMUNITY_EDITION_NO_EXTERNAL_WORKERS,
        "the server runs Community Edition, which allows no external workers",
    ),
    "license_expired_or_invalid": (
        codes.LICENSE_EXPIRED_OR_INVALID,
        "the server's license is expired or invalid",
    ),
}
"""Product codes (verbatim, lower snake) that the guide names, and what they mean."""


@dataclass(frozen=True)
class LoggedAuthorization:
    """The latest statement of all copies, and each copy's own latest one."""

    latest: TimelineEvent | None = None
    by_source: dict[str, TimelineEvent] = field(default_factory=dict)
    timeline: Timeline = field(default_factory=Timeline)
    """Where the lines were read: a worker's log may be stamped on a clock that is off."""

    def disagreement(self) -> tuple[str, list[Citation]]:
        """A sentence saying how the copies disagree, and their lines; empty when they agree."""
        said = {source: _says(event) for source, event in self.by_source.items()}
        if len(set(said.values())) < 2:
            return "", []
        each = "; ".join(
            f"{source} last says {said[source]}{_when(self.timeline, event)}"
            for source, event in self.by_source.items()
        )
        sentence = f" The copies of its log disagree: {each}. The later line decides."
        return sentence, [event.citation() for event in self.by_source.values()]


def read(ctx: RuleContext, worker: str) -> LoggedAuthorization:
    said = ctx.timeline.of_kind(*STATEMENT_KINDS, worker=worker)
    by_source: dict[str, TimelineEvent] = {}
    for event in said:  # in time order: the last one a copy holds is its latest
        for copy in copies(event):
            by_source[source_of(copy)] = copy
    return LoggedAuthorization(said[-1] if said else None, by_source, ctx.timeline)


def from_worker_log(ctx: RuleContext, worker: str) -> RuleResult | None:
    """No decision from the server: the latest refusal with a code the guide names fails the
    rung, citing its line in each copy that holds it, unless a lease renewal logged after
    it shows the worker recovered."""
    logged = read(ctx, worker)
    latest = logged.latest
    native = str(latest.detail.get("native_code", "")) if latest else ""
    if latest is None or latest.kind != "auth_rejected" or native not in NATIVE_CODES:
        return None
    code, meaning = NATIVE_CODES[native]
    holders = copies(latest)
    where = named(holders)
    disagree, lines = logged.disagreement()
    evidence = [copy.citation() for copy in holders]
    evidence += [line for line in lines if line not in evidence]
    return RuleResult.fail(
        code,
        f"Worker {worker} is not authorized: {where} reports {meaning} ({native}); the "
        f"bundle has no decision from the server to say otherwise.{disagree}",
        evidence=evidence,
        native_code=native,
        worker=worker,
        source=where,
    )


def _says(event: TimelineEvent) -> str:
    if event.kind == "lease_renewed":
        return "its lease was renewed"
    native = event.detail.get("native_code")
    return f"it was refused ({native})" if native else "it was refused"


def _when(timeline: Timeline, event: TimelineEvent) -> str:
    """When the line was logged: on a worker's clock that is off, what that is on the server's."""
    if event.at is None:
        return ""
    return f" at {described(event.at, timeline.clock_of(event), event.worker)}"
