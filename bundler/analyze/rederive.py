"""Re-derive canonical evidence from ``raw/`` with the profile that runs the analysis.

A normalizer fix must reach bundles collected before it (as insights-core
parses raw data at analysis time): when a bundle holds the raw members its
stored ``evidence/`` was normalized from, the analysis normalizes them again
with *this* bundler's profile and believes that. The stored documents are the
fallback (a bundle without raw data, a profile this bundler lacks, a
normalizer that breaks); the report says which was used and, where both exist
and differ, which documents differ.

The step results the normalizer reads are rebuilt from the manifest: each
collector's id names its plan step (``http.<step>[.<index>]``,
``<kind>.<alias>.<step>...``), its first member is the raw member, and a
fan-out's bound values come from expanding its parents' raw documents again,
in the same order as at collection time.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from schemas import Finding, Manifest
from schemas.evidence import EvidenceDoc
from schemas.manifest import CollectorKind, CollectorOutcome, CollectorStatus

from ..source import (
    MemberNotFound,
    MemberSource,
    MemorySource,
    Refused,
    declared_size,
    read_json,
)
from . import codes
from .api import EvidenceSet, excerpt, make_finding

if TYPE_CHECKING:
    from ..collect.plan import HttpStep, Plan
    from ..products.base import Profile, StepResult

_VOLATILE = ("observed_at",)
"""Fields that differ between two normalizations of the same raw data."""


@dataclass
class Rederived:
    evidence: EvidenceSet
    note: Finding
    differs: list[str] = field(default_factory=list)


def rederive(evidence: EvidenceSet, profile: Profile | None) -> Rederived:
    """The evidence to analyze: re-derived from raw members when possible, else as stored."""
    manifest = evidence.manifest
    if profile is None or manifest is None or not _has_raw(evidence.source, manifest):
        return Rederived(evidence, _stored("the bundle holds no raw members to re-derive from"))
    refused: dict[str, Refused] = {}
    try:
        results = step_results(evidence.source, manifest, profile.plan())
        docs = normalize_raw(evidence.source, manifest, profile, results, refused=refused)
    except Exception as exc:  # a normalizer bug must not cost the stored evidence
        return Rederived(
            evidence,
            _stored(f"re-deriving failed ({type(exc).__name__}: {excerpt(str(exc), 120)})"),
        )
    overlay = _Overlay(evidence.source)
    differs = []
    for doc in docs:
        fresh = json.loads(doc.model_dump_json(exclude_none=True, by_alias=True))
        if _differs(evidence.source, doc.member_path, fresh):
            differs.append(doc.member_path)
        overlay.put(doc.member_path, fresh)
    said = (
        f" It differs from the stored evidence in {', '.join(differs)}: the stored documents "
        "were written by the bundler that collected the bundle."
        if differs
        else " It matches the stored evidence."
    )
    note = make_finding(
        codes.EVIDENCE_REDERIVED,
        "info",
        f"Canonical evidence was re-derived from the bundle's raw members with this bundler's "
        f"{profile.name} profile.{said}",
        source="raw",
        differs=differs,
    )
    rederived = EvidenceSet(overlay, manifest)
    rederived.refused.update(refused)  # raw members the normalizer could not read: gaps to name
    return Rederived(rederived, note, differs)


def _stored(why: str) -> Finding:
    return make_finding(
        codes.EVIDENCE_STORED,
        "info",
        f"The stored evidence/ documents were analyzed: {why}.",
        source="stored",
    )


def _has_raw(source: MemberSource, manifest: Manifest) -> bool:
    return any(m.path.startswith("raw/") for m in manifest.members) and any(
        n.startswith("raw/") for n in source.names()
    )


def _differs(source: MemberSource, member: str, fresh: dict[str, Any]) -> bool:
    try:
        stored = read_json(source, member)
    except (MemberNotFound, ValueError):
        return True
    if not isinstance(stored, dict):
        return True
    drop = {k: None for k in _VOLATILE}
    stored, fresh = {**stored, **drop}, {**fresh, **drop}
    return stored != fresh and not _same(stored, fresh, {})


_TOKEN = re.compile(r"\[REDACTED:[a-z0-9][a-z0-9-]{0,39}:[0-9a-f]{8}\]")
"""A redaction token as the sealing bundler writes it (``redactors.tokens.TOKEN_RE``)."""


def _same(stored: Any, fresh: Any, tokens: dict[str, str]) -> bool:
    """Whether ``stored`` is ``fresh`` as the sealing redacted it.

    Stored evidence went through redaction when the bundle was sealed; evidence
    re-derived now did not. A value the normalizer builds from parts the raw
    members hold apart (a setting's name beside where it came from) can read as
    a secret to the redactor, so the stored document holds a token where the
    re-derived one holds the value: that is the same derivation, not a newer
    normalizer. A token stands for one value throughout a document (``tokens``).
    """
    if isinstance(stored, dict) and isinstance(fresh, dict):
        return stored.keys() == fresh.keys() and all(
            _same(stored[key], fresh[key], tokens) for key in stored
        )
    if isinstance(stored, list) and isinstance(fresh, list):
        return len(stored) == len(fresh) and all(
            _same(s, f, tokens) for s, f in zip(stored, fresh, strict=True)
        )
    if isinstance(stored, str) and isinstance(fresh, str) and _TOKEN.search(stored):
        return _fills(stored, fresh, tokens)
    return bool(stored == fresh)


def _fills(stored: str, fresh: str, tokens: dict[str, str]) -> bool:
    """Whether ``fresh`` is ``stored`` with each token standing for a non-empty text.

    Read left to right, each token ending where the text after it next occurs:
    linear in the length (no backtracking over a long line); a value that itself
    holds the text after its token reads as a difference, never as a match.
    """
    names = _TOKEN.findall(stored)
    head, *middle, tail = _TOKEN.split(stored)
    end = len(fresh) - len(tail)
    if not (fresh.startswith(head) and fresh.endswith(tail)) or end <= len(head):
        return False
    pos, values = len(head), []
    for part in middle:
        found = fresh.find(part, pos + 1, end)
        if found < 0:
            return False
        values.append(fresh[pos:found])
        pos = found + len(part)
    if end <= pos:
        return False
    values.append(fresh[pos:end])
    return all(tokens.setdefault(n, v) == v for n, v in zip(names, values, strict=True))


def normalize_raw(
    source: MemberSource,
    manifest: Manifest,
    profile: Profile,
    results: list[StepResult],
    *,
    refused: dict[str, Refused] | None = None,
) -> Sequence[EvidenceDoc]:
    """``profile``'s canonical documents from the bundle's raw members and ``results``.

    ``refused``, if given, receives the raw members the normalizer declined to parse
    (over the JSON cap): the documents list them as gaps; the caller names them."""
    from ..products.base import NormalizeContext

    observed = _stored_observed_at(source) or next(
        (r.finished_at for r in sorted(results, key=_end, reverse=True) if r.finished_at),
        manifest.created_at,
    )
    settings: dict[str, Any] = dict(manifest.options)
    settings.setdefault("insecure", manifest.target.insecure_tls)
    ctx = NormalizeContext(
        source=source,
        results=results,
        hosts=list(manifest.target.hosts),
        observed_at=observed,
        server_url=manifest.target.server_url,
        settings=settings,
        members={member.path: member for member in manifest.members},
        refused=refused if refused is not None else {},
    )
    return profile.normalize(ctx)


def _stored_observed_at(source: MemberSource) -> datetime | None:
    """When the collecting bundler normalized (ages are measured from it), if it said."""
    from schemas.evidence import ProductInfo

    try:
        stamp = read_json(source, ProductInfo.member_path).get("observed_at")
        return datetime.fromisoformat(stamp.replace("Z", "+00:00")) if stamp else None
    except (MemberNotFound, ValueError, AttributeError):
        return None


def _end(result: StepResult) -> float:
    return result.finished_at.timestamp() if result.finished_at else float("-inf")


def step_results(source: MemberSource, manifest: Manifest, plan: Plan) -> list[StepResult]:
    """The normalizer's step results, rebuilt from the manifest's collector outcomes."""
    from ..products.base import StepResult

    http = {s.id: s for s in plan.http_steps()}
    host_ids = sorted((s.id for s in plan.host_steps()), key=len, reverse=True)
    bound = _bindings(source, manifest, http)
    results = []
    for outcome in manifest.collectors:
        step, host, index = _step_of(outcome, http, host_ids)
        if outcome.step is not None:  # recorded since the manifest carries it: exact
            step = outcome.step
        if step is None:
            continue
        values = outcome.bound or (bound.get(step, {}).get(index, {}) if index is not None else {})
        finished = (
            outcome.started_at + timedelta(seconds=outcome.duration_s)
            if outcome.started_at
            else None
        )
        results.append(
            StepResult(
                step=step,
                collector=outcome.id,
                status=outcome.status,
                member=outcome.members[0] if outcome.members else None,
                host=host,
                bound=dict(values),
                http_status=(outcome.http.status_code if outcome.http else None)
                or _http_status(outcome),
                exit_code=outcome.exit_code,
                error_class=outcome.error_class,
                error_message=outcome.error_message,
                finished_at=finished,
            )
        )
    return results


def _http_status(outcome: CollectorOutcome) -> int | None:
    """For bundles whose manifest predates ``http``: what the outcome implies."""
    if outcome.kind is not CollectorKind.HTTP:
        return None
    said = re.search(
        r"\bHTTP (\d{3})\b", " ".join(filter(None, (outcome.error_message, outcome.note)))
    )
    if said:
        return int(said.group(1))
    if outcome.status is CollectorStatus.OK:
        return 200
    if outcome.status is CollectorStatus.SKIPPED and "404" in (outcome.note or ""):
        return 404
    return None


def _step_of(
    outcome: CollectorOutcome, http: dict[str, HttpStep], host_ids: list[str]
) -> tuple[str | None, str | None, int | None]:
    """(step id, host alias, fan-out index) a collector id stands for."""
    if outcome.kind is CollectorKind.HTTP:
        rest = outcome.id.removeprefix("http.")
        head, _, tail = rest.rpartition(".")
        if head in http and tail.isdigit():
            return head, None, int(tail)
        return (rest if rest in http else None), None, None
    parts = outcome.id.split(".", 2)
    if len(parts) < 3:
        return None, None, None
    alias, name = parts[1], parts[2]
    step = next((s for s in host_ids if name == s or name.startswith(s + ".")), None)
    return step, alias, None


def _bindings(
    source: MemberSource, manifest: Manifest, http: dict[str, HttpStep]
) -> dict[str, dict[int, dict[str, str]]]:
    """step -> fan-out index -> bound values, by expanding the parents' raw documents again."""
    from ..collect.validate import expand

    members = {c.id: c.members for c in manifest.collectors if c.kind is CollectorKind.HTTP}
    out: dict[str, dict[int, dict[str, str]]] = {}
    for step in http.values():
        if step.for_each is None:
            continue
        parent = step.for_each.step
        ids = sorted(
            (
                cid
                for cid in members
                if cid == f"http.{parent}" or cid.startswith(f"http.{parent}.")
            ),
            key=lambda cid: (len(cid), cid),
        )
        documents = []
        for cid in ids:
            for member in members[cid][:1]:
                try:
                    documents.append(read_json(source, member))
                except (MemberNotFound, ValueError):
                    continue
        bindings, _ = expand(step.for_each, documents)
        out[step.id] = dict(enumerate(bindings))
    return out


class _Overlay(MemorySource):
    """The bundle's members, with re-derived evidence documents laid over the stored ones."""

    def __init__(self, base: MemberSource) -> None:
        super().__init__()
        self._base = base

    @property
    def origin(self) -> MemberSource:
        """The bundle's own members under the overlay (what a log scan is stashed for)."""
        return self._base

    def put(self, name: str, value: dict[str, Any]) -> None:
        self.add(name, json.dumps(value).encode())

    def names(self) -> list[str]:
        return sorted(set(self._base.names()) | set(super().names()))

    def has(self, name: str) -> bool:
        return super().has(name) or self._base.has(name)

    def read_bytes(self, name: str) -> bytes:
        if super().has(name):
            return super().read_bytes(name)
        return self._base.read_bytes(name)

    def iter_chunks(self, name: str, chunk_size: int = 1 << 20):  # type: ignore[no-untyped-def]
        if super().has(name):
            return super().iter_chunks(name, chunk_size)
        return self._base.iter_chunks(name, chunk_size)

    def member_size(self, name: str) -> int | None:
        if super().has(name):
            return super().member_size(name)
        return declared_size(self._base, name)
