"""``bundler verify``: every checksum, the manifest, and every member that declares a schema.

Verification opens the bundle leniently and reads everything, so one run
lists *all* problems instead of stopping at the first: checksums and AES
authentication of every member, members missing from or unknown to the
manifest, canonical evidence against its schema (``schemas.EVIDENCE_KINDS``
by ``MemberEntry.schema_name``), and the redaction report against its own.
Raw product records (schemas owned by a product profile) are listed as not
checked: their validity was recorded at collection (``MemberEntry.valid``).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from schemas import (
    EVIDENCE_KINDS,
    MANIFEST_MEMBER,
    REDACTION_REPORT_SCHEMA,
    Integrity,
    MemberEntry,
    RedactionReport,
)

from ...source import JsonTooLarge, MemberNotFound, max_json_bytes
from ..manifest_load import parse_json, validate_document
from ..reader import BundleReader
from . import MemberUnsound

CheckStatus = Literal["ok", "problem", "not_checked"]
CheckKind = Literal["structure", "manifest", "checksum", "schema"]


class CheckResult(BaseModel):
    """One verification check: what, on which member, and its outcome."""

    check: CheckKind
    member: str | None = None
    status: CheckStatus
    detail: str | None = None


class VerifyReport(BaseModel):
    """What ``bundler verify --json`` prints."""

    bundle: str
    format: str | None = None
    ok: bool
    integrity: Integrity
    members_checked: int = 0
    bytes_checked: int = 0
    checks: list[CheckResult] = Field(default_factory=list)

    @property
    def problems(self) -> list[CheckResult]:
        return [c for c in self.checks if c.status == "problem"]


def verify_bundle(reader: BundleReader) -> VerifyReport:
    """Verify an open (preferably lenient) bundle completely."""
    integrity = reader.check()
    checks: list[CheckResult] = []
    for problem in integrity.problems:
        kind: CheckKind = "manifest" if problem.kind.startswith("manifest") else "structure"
        if problem.kind in ("sha256_mismatch", "auth_failed", "corrupt"):
            kind = "checksum"
        checks.append(
            CheckResult(check=kind, member=problem.member, status="problem", detail=problem.message)
        )
    manifest = reader.manifest
    if manifest is not None:
        checks.append(CheckResult(check="manifest", member=MANIFEST_MEMBER, status="ok"))
    sound = set(reader.names())
    checked = 0
    size = 0
    for entry in manifest.members if manifest else []:
        if entry.path not in sound:
            continue
        checked += 1
        size += entry.size
        checks.append(CheckResult(check="checksum", member=entry.path, status="ok"))
        schema_check = _check_schema(reader, entry)
        if schema_check is not None:
            checks.append(schema_check)
    ok = not integrity.problems and not any(c.status == "problem" for c in checks)
    return VerifyReport(
        bundle=str(reader.path),
        format=manifest.format if manifest else None,
        ok=ok,
        integrity=integrity.to_schema(),
        members_checked=checked,
        bytes_checked=size,
        checks=checks,
    )


def _check_schema(reader: BundleReader, entry: MemberEntry) -> CheckResult | None:
    name = entry.schema_name
    if not name:
        return None
    evidence = EVIDENCE_KINDS.get(name)
    model = RedactionReport if name == REDACTION_REPORT_SCHEMA else evidence
    if model is None:
        detail = "product record; validity recorded at collection"
        if entry.valid is False:
            detail = "product record flagged invalid at collection (kept as collected)"
        return CheckResult(check="schema", member=entry.path, status="not_checked", detail=detail)
    limit = max_json_bytes()
    if entry.size > limit:  # not read, so not vouched for: a problem, never "ok"
        return _schema_problem(
            entry, f"not validated: {JsonTooLarge(entry.path, entry.size, limit)}"
        )
    try:
        document = parse_json(reader.read_bytes(entry.path), entry.path)
    except (MemberUnsound, MemberNotFound):
        return None  # already reported as a checksum problem
    except ValueError as exc:
        return _schema_problem(entry, str(exc))
    reason = validate_document(model, document)
    if reason is not None:
        return _schema_problem(entry, f"not a valid {name}: {reason}")
    if evidence is not None and evidence.member_path and evidence.member_path != entry.path:
        return _schema_problem(entry, f"{name} belongs at {evidence.member_path}")
    return CheckResult(check="schema", member=entry.path, status="ok", detail=name)


def _schema_problem(entry: MemberEntry, detail: str) -> CheckResult:
    return CheckResult(check="schema", member=entry.path, status="problem", detail=detail)
