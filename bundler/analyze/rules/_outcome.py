"""Collect several findings from one rule and turn them into one :class:`RuleResult`.

Some rules check several independent facts of one thing (a lease: expiry,
validity start, signature, renewals). Reporting every problem at once saves
the engineer a round trip, so such rules accumulate findings here and the
worst one sets the status.
"""

from __future__ import annotations

from typing import Any

from schemas import Finding, LayerStatus

from ..api import RuleResult, make_finding


class Outcome:
    """Findings of one rule, worst first when turned into a result."""

    def __init__(self) -> None:
        self.failures: list[Finding] = []
        self.warnings: list[Finding] = []
        self.unknowns: list[Finding] = []
        self.notes: list[Finding] = []

    def fail(self, code: str, message: str, **kwargs: Any) -> None:
        self.failures.append(make_finding(code, "fail", message, **kwargs))

    def warn(self, code: str, message: str, **kwargs: Any) -> None:
        self.warnings.append(make_finding(code, "warn", message, **kwargs))

    def unknown(self, code: str, message: str, **kwargs: Any) -> None:
        self.unknowns.append(make_finding(code, "info", message, **kwargs))

    def note(self, code: str, message: str, **kwargs: Any) -> None:
        """Worth showing, not worth a warning: the rung still passes."""
        self.notes.append(make_finding(code, "info", message, **kwargs))

    def __bool__(self) -> bool:
        return bool(self.failures or self.warnings or self.unknowns or self.notes)

    def result(self, passed: Finding | None = None) -> RuleResult:
        """Fail > unknown > warn > pass; every finding is kept."""
        findings = self.failures + self.unknowns + self.warnings + self.notes
        if self.failures:
            return RuleResult(LayerStatus.FAIL, findings)
        if self.unknowns:
            return RuleResult(LayerStatus.UNKNOWN, findings)
        if self.warnings:
            return RuleResult(LayerStatus.WARN, findings)
        return RuleResult.pass_(*self.notes, *([passed] if passed else []))
