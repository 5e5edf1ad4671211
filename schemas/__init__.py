"""Data contracts of bundler: the bundle format, canonical evidence, reports.

This package depends on pydantic only, and nothing in it imports
``redactors`` or ``bundler`` (the layering is schemas <- redactors <- bundler).
Run ``python -m schemas`` to regenerate the JSON Schema files in
``schemas/json/``; ``python -m schemas --check`` fails when they are stale.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the names, for type checkers; at run time each loads on first use
    from ._base import InputModel, ManyRecord, RecordModel, UTCDateTime, shared_records, utc_now
    from .analysis import (
        ANALYSIS_SCHEMA,
        AcceptanceCheck,
        AnalysisReport,
        BundleInfo,
        Finding,
        Integrity,
        LayerResult,
        Recovery,
        TargetReport,
    )
    from .citation import Citation, LineRange
    from .diff import DIFF_SCHEMA, DiffReport
    from .evidence import EVIDENCE_KINDS, EvidenceDoc, Source
    from .ladder import LAYER_QUESTIONS, Layer, LayerStatus, Provenance, Verdict
    from .manifest import (
        FORMAT_VERSION,
        MANIFEST_MEMBER,
        CollectorKind,
        CollectorOutcome,
        CollectorStatus,
        EncryptionInfo,
        HostRole,
        HostSummary,
        HttpExchange,
        Manifest,
        MemberEntry,
        RecipientInfo,
        RedactionSummary,
        TargetSummary,
        ToolInfo,
        UnsupportedFormatError,
        parse_format,
    )
    from .overview import FleetOverview, WorkerGroup, WorkerOverview
    from .redaction import (
        REDACTION_REPORT_MEMBER,
        REDACTION_REPORT_SCHEMA,
        REVIEW_SCHEMA,
        FileRedaction,
        RedactionHit,
        RedactionReport,
        ResidualFinding,
        ReviewResult,
        RuleInfo,
        SkippedFile,
    )

_LAZY = {
    "ANALYSIS_SCHEMA": "analysis",
    "AcceptanceCheck": "analysis",
    "AnalysisReport": "analysis",
    "BundleInfo": "analysis",
    "Citation": "citation",
    "CollectorKind": "manifest",
    "CollectorOutcome": "manifest",
    "CollectorStatus": "manifest",
    "DIFF_SCHEMA": "diff",
    "DiffReport": "diff",
    "EVIDENCE_KINDS": "evidence",
    "EncryptionInfo": "manifest",
    "EvidenceDoc": "evidence",
    "FORMAT_VERSION": "manifest",
    "FileRedaction": "redaction",
    "Finding": "analysis",
    "FleetOverview": "overview",
    "HostRole": "manifest",
    "HostSummary": "manifest",
    "HttpExchange": "manifest",
    "InputModel": "_base",
    "Integrity": "analysis",
    "LAYER_QUESTIONS": "ladder",
    "Layer": "ladder",
    "LayerResult": "analysis",
    "LayerStatus": "ladder",
    "LineRange": "citation",
    "MANIFEST_MEMBER": "manifest",
    "Manifest": "manifest",
    "ManyRecord": "_base",
    "MemberEntry": "manifest",
    "Provenance": "ladder",
    "REDACTION_REPORT_MEMBER": "redaction",
    "REDACTION_REPORT_SCHEMA": "redaction",
    "REVIEW_SCHEMA": "redaction",
    "RecipientInfo": "manifest",
    "RecordModel": "_base",
    "Recovery": "analysis",
    "RedactionHit": "redaction",
    "RedactionReport": "redaction",
    "RedactionSummary": "manifest",
    "ResidualFinding": "redaction",
    "ReviewResult": "redaction",
    "RuleInfo": "redaction",
    "SkippedFile": "redaction",
    "Source": "evidence",
    "TargetReport": "analysis",
    "TargetSummary": "manifest",
    "ToolInfo": "manifest",
    "UTCDateTime": "_base",
    "UnsupportedFormatError": "manifest",
    "Verdict": "ladder",
    "WorkerGroup": "overview",
    "WorkerOverview": "overview",
    "parse_format": "manifest",
    "shared_records": "_base",
    "utc_now": "_base",
}
"""Exported name -> the submodule defining it. Importing everything at start-up cost
``bundler redact`` of one small file a few hundred ms of pydantic model building
(issue 19); ``from schemas import Manifest`` now builds the manifest models only."""


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(__import__(f"{__name__}.{module}", fromlist=[name]), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})


__all__ = [
    "ANALYSIS_SCHEMA",
    "DIFF_SCHEMA",
    "EVIDENCE_KINDS",
    "FORMAT_VERSION",
    "LAYER_QUESTIONS",
    "MANIFEST_MEMBER",
    "REDACTION_REPORT_MEMBER",
    "REDACTION_REPORT_SCHEMA",
    "REVIEW_SCHEMA",
    "AcceptanceCheck",
    "AnalysisReport",
    "BundleInfo",
    "Citation",
    "CollectorKind",
    "CollectorOutcome",
    "CollectorStatus",
    "DiffReport",
    "EncryptionInfo",
    "EvidenceDoc",
    "FileRedaction",
    "Finding",
    "FleetOverview",
    "HostRole",
    "HostSummary",
    "HttpExchange",
    "InputModel",
    "Integrity",
    "Layer",
    "LayerResult",
    "LayerStatus",
    "LineRange",
    "Manifest",
    "ManyRecord",
    "MemberEntry",
    "Provenance",
    "RecipientInfo",
    "RecordModel",
    "Recovery",
    "RedactionHit",
    "RedactionReport",
    "RedactionSummary",
    "ResidualFinding",
    "ReviewResult",
    "RuleInfo",
    "SkippedFile",
    "Source",
    "TargetReport",
    "TargetSummary",
    "ToolInfo",
    "UTCDateTime",
    "UnsupportedFormatError",
    "Verdict",
    "WorkerGroup",
    "WorkerOverview",
    "parse_format",
    "shared_records",
    "utc_now",
]
