"""The redaction report (inside every bundle) and the review result (of ``bundler review``).

Neither ever holds an original secret value: only rule ids, kinds, positions,
counts and the replacement tokens (whose suffix is a keyed HMAC).
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from ._base import RecordModel

REDACTION_REPORT_SCHEMA = "bundler.redaction/1"
REVIEW_SCHEMA = "bundler.review/1"
REDACTION_REPORT_MEMBER = "redaction-report.json"


RuleSource = Literal["builtin", "custom", "keyword"]
"""Where a redaction rule comes from: the built-in catalog, a --rules file, a --keyword."""


class RuleInfo(RecordModel):
    id: str
    kind: str
    description: str | None = None
    source: RuleSource = "builtin"


class RedactionHit(RecordModel):
    rule: str
    kind: str
    line: int | None = Field(default=None, ge=1)
    count: int = Field(default=1, ge=1)
    token: str = Field(description="The replacement token written, e.g. [REDACTED:jwt:3f9a1c2b].")
    decoders: list[str] = Field(
        default_factory=list, description="Decoding layers the value was found under."
    )
    via: Literal["rule", "structure", "literal", "name"] = "rule"


class FileRedaction(RecordModel):
    member: str = Field(description="Member name as written (redacted).")
    name_redacted: bool = False
    sha256: str | None = Field(default=None, description="sha256 of the redacted content.")
    size: int | None = None
    hits: list[RedactionHit] = Field(default_factory=list)
    by_kind: dict[str, int] = Field(default_factory=dict)
    hits_omitted: int = Field(
        default=0,
        ge=0,
        description="Redactions counted in by_kind but left out of hits (the list is capped).",
    )


class SkippedFile(RecordModel):
    member: str = Field(description="Name (redacted) of the file left out or kept unscanned.")
    reason: Literal["binary", "too_large", "decode_error", "policy", "symlink", "special_file"]
    detail: str | None = None
    kept: bool = Field(default=False, description="True if kept anyway (--keep-binary).")


class RedactionReport(RecordModel):
    schema_: str = Field(default=REDACTION_REPORT_SCHEMA, alias="schema")
    ruleset_id: str
    ruleset_sha256: str
    rules: list[RuleInfo] = Field(default_factory=list)
    obfuscate_network: bool = False
    custom_rules_sha256: str | None = None
    keywords: int = Field(default=0, description="Number of --keyword values (not the values).")
    files: list[FileRedaction] = Field(default_factory=list)
    skipped: list[SkippedFile] = Field(default_factory=list)
    total: int = 0
    by_kind: dict[str, int] = Field(default_factory=dict)
    pseudonyms: dict[str, int] = Field(
        default_factory=dict, description="Number of distinct pseudonyms per kind (ip, host...)."
    )


class ResidualFinding(RecordModel):
    member: str
    line: int | None = None
    kind: str
    check: Literal["detector", "entropy", "encoded-literal", "member-name", "manifest", "report"]
    preview: str = Field(description="Masked preview; never the full value.")


class ReviewResult(RecordModel):
    schema_: str = Field(default=REVIEW_SCHEMA, alias="schema")
    clean: bool
    members_checked: int = 0
    bytes_checked: int = 0
    checks: list[str] = Field(default_factory=list)
    findings: list[ResidualFinding] = Field(default_factory=list)
    report_consistent: bool | None = Field(
        default=None, description="Whether the redaction report matches the members' hashes."
    )
    report_mismatches: list[str] = Field(
        default_factory=list,
        description="Each member where the redaction report and the bundle disagree, and how.",
    )
