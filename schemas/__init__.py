"""Data contracts of bundler: the bundle format, canonical evidence, reports.

This package depends on pydantic only, and nothing in it imports
``redactors`` or ``bundler`` (the layering is schemas <- redactors <- bundler).
Run ``python -m schemas`` to regenerate the JSON Schema files in
``schemas/json/``; ``python -m schemas --check`` fails when they are stale.
"""

from __future__ import annotations

from ._base import InputModel, RecordModel, UTCDateTime, utc_now
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
    "utc_now",
]
