"""Exceptions of the redaction layer (``bundler`` maps them to its own user errors)."""

from __future__ import annotations


class MemberRefused(Exception):
    """A member is left out of the bundle (binary, nested archive, policy); the reason is kept.

    Same shape as ``bundler.archive.contracts.MemberDropped`` (``reason``,
    ``detail``); the bundler adapter re-raises it as that.
    """

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason
        self.detail = detail


class RulesError(ValueError):
    """A custom rule file is invalid; the message is one line and names the rule."""


class SegmentMisaligned(Exception):
    """A segment of a member cannot stop where it was asked to (a secret straddles the point).

    Not a user error: the caller redacts that member in one piece instead.
    """


class MemberUnreadable(Exception):
    """Review could not read a member to its end (a damaged gzip stream), cannot see into what
    it holds (a binary file, a tar carrying one) or could not walk a JSON/YAML/TOML member's
    structure (:mod:`.walklimits`): it cannot vouch for it, so the caller rejects the bundle
    (never "clean"). ``member`` is its name as stored; ``hint`` what the user can do."""

    def __init__(
        self,
        member: str,
        reason: str,
        hint: str = "recompress it from an intact copy (or leave it out) and review again",
    ) -> None:
        super().__init__(f"{member}: {reason}")
        self.member = member
        self.reason = reason
        self.hint = hint


class NestedTooDeep(ValueError):
    """An object handed to :meth:`~redactors.BundleRedactor.redact_object` nests deeper than
    the structure walk reads (:data:`~redactors.walklimits.WALK_DEPTH`). Its deep values were
    never looked at, so no redacted copy is returned: one with them in clear would read as
    redacted."""
