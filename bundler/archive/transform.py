"""The identity :class:`~bundler.archive.contracts.MemberTransform`: stores members as given.

For tests, and for callers that write bundles without redaction (the bundle
says so: its redaction report names the ``none`` rule set and counts nothing).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator

from schemas import REDACTION_REPORT_MEMBER, RedactionReport, RedactionSummary

NO_REDACTION_RULESET = "none"
_EMPTY_SHA256 = hashlib.sha256(b"").hexdigest()


class NoRedaction:
    """A transform that changes nothing and reports that nothing was redacted."""

    def member_name(self, name: str) -> str:
        return name

    def transform(self, name: str, chunks: Iterable[bytes], *, media_type: str) -> Iterator[bytes]:
        yield from chunks

    def transform_derived(
        self, name: str, chunks: Iterable[bytes], *, media_type: str
    ) -> Iterator[bytes]:
        yield from chunks

    def finalize(self, name: str, chunks: Iterable[bytes], *, media_type: str) -> Iterator[bytes]:
        yield from chunks

    def redact_text(self, text: str) -> str:
        return text

    def finalize_text(self, text: str) -> str:
        return text

    def report(self) -> RedactionReport:
        return RedactionReport(ruleset_id=NO_REDACTION_RULESET, ruleset_sha256=_EMPTY_SHA256)

    def summary(self) -> RedactionSummary:
        return RedactionSummary(
            ruleset_id=NO_REDACTION_RULESET,
            ruleset_sha256=_EMPTY_SHA256,
            report_member=REDACTION_REPORT_MEMBER,
        )
