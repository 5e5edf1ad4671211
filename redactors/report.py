"""Collects what was redacted where, as :class:`schemas.RedactionReport` (never a value).

Hits are aggregated per member by (rule, kind, line, token): a log with the
same token on ten thousand lines stays readable. The per-hit list of one
member is capped; ``by_kind`` always counts everything.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from schemas import (
    FileRedaction,
    RedactionHit,
    RedactionReport,
    RedactionSummary,
    RuleInfo,
    SkippedFile,
)

MAX_HITS_PER_MEMBER = 5000


HitKey = tuple[str, str, int | None, str, str, tuple[str, ...]]
"""(rule, kind, line, token, via, decoders): the hits of one member are counted by this."""
_NONE: Mapping[Any, int] = MappingProxyType({})


@dataclass(slots=True)
class MemberRecord:
    """What was redacted in one member.

    Slotted, and its counters made at its first hit: a bundle holds one per member
    until it is sealed (10,600 at 1,000 hosts), most have no hit, and two empty
    counters and a ``__dict__`` each were ~2 MB of a fleet's doctor run.
    """

    member: str
    name_redacted: bool = False
    sha256: str | None = None
    size: int | None = None
    _hits: Counter[HitKey] | None = None
    _by_kind: Counter[str] | None = None

    @property
    def hits(self) -> Mapping[HitKey, int]:
        return self._hits if self._hits is not None else _NONE

    @property
    def by_kind(self) -> Mapping[str, int]:
        return self._by_kind if self._by_kind is not None else _NONE

    def _counters(self) -> tuple[Counter[HitKey], Counter[str]]:
        if self._hits is None or self._by_kind is None:
            self._hits, self._by_kind = Counter(), Counter()
        return self._hits, self._by_kind

    def add(
        self,
        rule: str,
        kind: str,
        line: int | None,
        token: bytes,
        via: str,
        decoders: tuple[str, ...] = (),
    ) -> None:
        hits, by_kind = self._counters()
        by_kind[kind] += 1
        key = (rule, kind, line, token.decode("latin-1"), via, decoders)
        if key in hits or len(hits) < MAX_HITS_PER_MEMBER:
            hits[key] += 1

    def merge(self, other: MemberRecord, *, line_offset: int = 0) -> None:
        """Add what another process recorded for this member (lines shifted by ``line_offset``).

        A segment of a member counts its lines from its own start; its
        coordinator shifts them by the newlines of the segments before it.
        The per-hit cap applies to the merged list as it would to one pass.
        """
        if other.by_kind:
            hits, by_kind = self._counters()
            by_kind.update(other.by_kind)
            for (rule, kind, line, token, via, decoders), count in other.hits.items():
                shifted = line + line_offset if line is not None else None
                key = (rule, kind, shifted, token, via, decoders)
                if key in hits or len(hits) < MAX_HITS_PER_MEMBER:
                    hits[key] += count
        self.name_redacted = self.name_redacted or other.name_redacted


class ReportBuilder:
    def __init__(self, ruleset_id: str, ruleset_sha256: str, rules: list[RuleInfo]) -> None:
        self.ruleset_id = ruleset_id
        self.ruleset_sha256 = ruleset_sha256
        self.rules = rules
        self.members: dict[str, MemberRecord] = {}
        self.skipped: list[SkippedFile] = []
        self.pseudonyms: Counter[str] = Counter()
        self.obfuscate_network = False
        self.custom_rules_sha256: str | None = None
        self.keywords = 0

    def member(self, name: str) -> MemberRecord:
        record = self.members.get(name)
        if record is None:
            record = self.members[name] = MemberRecord(name)
        return record

    def skip(
        self, member: str, reason: str, detail: str | None = None, *, kept: bool = False
    ) -> None:
        self.skipped = [s for s in self.skipped if s.member != member]
        self.skipped.append(SkippedFile(member=member, reason=reason, detail=detail, kept=kept))  # type: ignore[arg-type]

    def build(self) -> RedactionReport:
        files = []
        for record in self.members.values():
            hits = [
                RedactionHit(
                    rule=rule,
                    kind=kind,
                    line=line,
                    count=count,
                    token=token,
                    decoders=list(decoders),
                    via=via,  # type: ignore[arg-type]  # validated: a Literal field
                )
                for (rule, kind, line, token, via, decoders), count in record.hits.items()
            ]
            hits.sort(key=lambda h: (h.line or 0, h.rule))
            files.append(
                FileRedaction(
                    member=record.member,
                    name_redacted=record.name_redacted,
                    sha256=record.sha256,
                    size=record.size,
                    hits=hits,
                    by_kind=dict(sorted(record.by_kind.items())),
                    hits_omitted=max(0, sum(record.by_kind.values()) - sum(h.count for h in hits)),
                )
            )
        files.sort(key=lambda f: f.member)
        total = self._kind_totals()
        return RedactionReport(
            ruleset_id=self.ruleset_id,
            ruleset_sha256=self.ruleset_sha256,
            rules=self.rules,
            obfuscate_network=self.obfuscate_network,
            custom_rules_sha256=self.custom_rules_sha256,
            keywords=self.keywords,
            files=files,
            skipped=sorted(self.skipped, key=lambda s: s.member),
            total=sum(total.values()),
            by_kind=dict(sorted(total.items())),
            pseudonyms=dict(sorted(self.pseudonyms.items())),
        )

    def summary(self, report_member: str | None = None) -> RedactionSummary:
        """The manifest's summary of :meth:`build`'s report, counted from the records:
        building the report validates one pydantic model per hit line (at 1,000 hosts
        ~4 MB of models, while the manifest is being built) for a few counts."""
        total = self._kind_totals()
        return RedactionSummary(
            ruleset_id=self.ruleset_id,
            ruleset_sha256=self.ruleset_sha256,
            report_member=report_member,
            total=sum(total.values()),
            by_kind=dict(sorted(total.items())),
            files_redacted=sum(1 for r in self.members.values() if r.by_kind or r.name_redacted),
            files_skipped=len(self.skipped),
            obfuscate_network=self.obfuscate_network,
        )

    def _kind_totals(self) -> Counter[str]:
        total: Counter[str] = Counter()
        for record in self.members.values():
            total.update(record.by_kind)
        return total
