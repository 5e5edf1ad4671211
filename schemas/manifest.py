"""The bundle manifest: what is in a bundle, who made it, how, and what failed.

The manifest is the last member written into a bundle (``manifest.json``). It
is the reader's index: every other member is listed with its sha256, so a
reader detects tampering and truncation; every collector is listed with its
outcome, so a failed collector is evidence rather than silence.

Nothing here may carry a secret: no raw command line, no password, no token.
The options recorded are the sanitized, typed options, never argv.
"""

from __future__ import annotations

import re
from enum import StrEnum
from typing import Any, Literal

from pydantic import Field, field_validator

from ._base import ManyRecord, RecordModel, UTCDateTime

FORMAT_NAME = "bundler"
FORMAT_MAJOR = 1
FORMAT_MINOR = 0
FORMAT_VERSION = f"{FORMAT_NAME}/{FORMAT_MAJOR}.{FORMAT_MINOR}"
"""The format this code writes. Readers accept any ``bundler/1.x``."""

MANIFEST_MEMBER = "manifest.json"

_FORMAT_RE = re.compile(r"^(?P<name>[a-z][a-z0-9_-]*)/(?P<major>\d+)(?:\.(?P<minor>\d+))?$")


class UnsupportedFormatError(ValueError):
    """The bundle's format is not one this reader understands."""


def parse_format(value: str) -> tuple[int, int]:
    """Return ``(major, minor)`` of a ``bundler/MAJOR[.MINOR]`` format string.

    Raises :class:`UnsupportedFormatError` for another format or an unknown
    major version; a newer *minor* version is accepted (it only adds fields).
    """
    match = _FORMAT_RE.match(value or "")
    if not match or match["name"] != FORMAT_NAME:
        raise UnsupportedFormatError(f"not a bundler bundle (format {value!r})")
    major, minor = int(match["major"]), int(match["minor"] or 0)
    if major != FORMAT_MAJOR:
        raise UnsupportedFormatError(
            f"bundle format {value} needs a newer bundler (this one reads {FORMAT_NAME}/"
            f"{FORMAT_MAJOR}.x)"
        )
    return major, minor


class ToolInfo(RecordModel):
    name: str = Field(default="bundler", description="Name of the tool that wrote the bundle.")
    version: str = Field(description="Version of the tool that wrote the bundle.")
    python: str | None = Field(default=None, description="Python version the tool ran on.")


class MemberEntry(ManyRecord):
    """One file inside the bundle."""

    path: str = Field(description="Member name inside the zip (already redacted).")
    sha256: str = Field(description="Hex sha256 of the member's stored (redacted) content.")
    size: int = Field(ge=0, description="Uncompressed size in bytes.")
    media_type: str = Field(
        default="application/octet-stream",
        description="MIME type, e.g. application/json or text/plain.",
    )
    schema_name: str | None = Field(
        default=None,
        description="Name of the bundler schema this member validates against, if any.",
    )
    collector: str | None = Field(
        default=None, description="Id of the collector that produced this member."
    )
    truncated: bool = Field(
        default=False, description="True when size caps cut the content (head and tail kept)."
    )
    valid: bool | None = Field(
        default=None,
        description=(
            "For members with a schema: whether the content validated when collected. "
            "An invalid record is kept (raw) and flagged rather than dropped."
        ),
    )

    @field_validator("sha256")
    @classmethod
    def _hex(cls, value: str) -> str:
        if not re.fullmatch(r"[0-9a-f]{64}", value):
            raise ValueError("sha256 must be 64 lowercase hex digits")
        return value


class CollectorKind(StrEnum):
    HTTP = "http"
    SSH = "ssh"
    LOCAL = "local"


class CollectorStatus(StrEnum):
    """How one collector ended.

    * ``ok``: it produced its evidence.
    * ``failed``: it ran and failed (HTTP 5xx, command exit code, parse error).
    * ``timeout``: it exceeded its own timeout or the run's deadline.
    * ``refused``: the target refused us (host key mismatch, auth rejected, 401/403).
    * ``skipped``: not run on purpose (not applicable, optional feature absent, e.g. a 404 on
      ``/metrics`` means observability is off).
    * ``interrupted``: the run was interrupted (Ctrl-C) before it finished.
    """

    OK = "ok"
    FAILED = "failed"
    TIMEOUT = "timeout"
    REFUSED = "refused"
    SKIPPED = "skipped"
    INTERRUPTED = "interrupted"


FAILED_STATUSES = frozenset(
    {
        CollectorStatus.FAILED,
        CollectorStatus.TIMEOUT,
        CollectorStatus.REFUSED,
        CollectorStatus.INTERRUPTED,
    }
)
"""Outcomes of a collector that ran (or should have) without giving usable evidence; ``skipped``
is not one (not run on purpose)."""


class HttpExchange(RecordModel):
    """The exact request an HTTP collector made and how the server answered (never a body).

    Recorded so ``bundler serve`` can answer the product's own client exactly
    as the server did: the rendered path and query (``/executions/abc?detailed=true``)
    are what a client asks, while the collector's ``target`` is only the
    template. Bundles written before this existed lack it; readers
    reconstruct what they can from the profile's plan.
    """

    method: Literal["GET"] = "GET"
    path: str = Field(description="Rendered, percent-encoded request path (redacted).")
    query: str = Field(default="", description="URL-encoded query string, without '?' (redacted).")
    status_code: int | None = Field(
        default=None, description="HTTP status the server answered; None when no response came."
    )
    content_type: str | None = Field(
        default=None,
        description=(
            "The response's Content-Type header (redacted; control characters replaced by U+FFFD)."
        ),
    )


class CollectorOutcome(ManyRecord):
    """What one collector did. Failures are evidence, never silence."""

    id: str = Field(description="Stable collector id, e.g. 'http.workers' or 'ssh.h01.server-log'.")
    kind: CollectorKind
    target: str = Field(description="What it talked to: a URL path, or a host alias like 'h01'.")
    started_at: UTCDateTime | None = None
    duration_s: float = Field(default=0.0, ge=0)
    status: CollectorStatus
    error_class: str | None = Field(
        default=None, description="Short class of the error, e.g. 'ConnectError', 'HostKeyChanged'."
    )
    error_message: str | None = Field(default=None, description="Redacted, one-line error message.")
    note: str | None = Field(
        default=None, description="Why it was skipped, or a remark (e.g. 'observability off')."
    )
    bytes: int = Field(default=0, ge=0, description="Bytes of evidence this collector produced.")
    members: list[str] = Field(default_factory=list, description="Members it produced.")
    attempts: int = Field(default=1, ge=0, description="Attempts made (retries included).")
    step: str | None = Field(
        default=None, description="The plan step this collector ran (re-derivation reads it)."
    )
    bound: dict[str, str] = Field(
        default_factory=dict,
        description="Fan-out values of this expansion, e.g. {'id': 'w1'} (values redacted).",
    )
    exit_code: int | None = Field(default=None, description="Exit code of the command.")
    http: HttpExchange | None = Field(
        default=None, description="For HTTP collectors: the exact request and response status."
    )


class HostRole(StrEnum):
    SERVER = "server"
    WORKER = "worker"
    OTHER = "other"


class HostSummary(ManyRecord):
    """A host the run talked to. ``alias`` is what member names use."""

    alias: str = Field(description="Stable alias used in member names, e.g. 'h01'.")
    address: str | None = Field(
        default=None,
        description="Address as given (redacted: pseudonymized with --obfuscate network).",
    )
    role: HostRole = HostRole.OTHER
    worker: str | None = Field(default=None, description="Worker name this host runs, if any.")
    transport: Literal["ssh", "local"] = "ssh"
    host_key_fingerprint: str | None = Field(
        default=None, description="SHA256 fingerprint of the host key we verified."
    )
    host_key_trusted_on_first_use: bool = Field(
        default=False, description="True when --accept-new-host-keys accepted a new key."
    )


class TargetSummary(RecordModel):
    server_url: str | None = Field(
        default=None, description="Control-plane URL, credentials removed."
    )
    hosts: list[HostSummary] = Field(default_factory=list)
    insecure_tls: bool = Field(
        default=False, description="True when --insecure disabled TLS verification."
    )


class RedactionSummary(RecordModel):
    """Short summary; the full per-file report is the redaction report member."""

    ruleset_id: str
    ruleset_sha256: str = Field(description="sha256 of the rule definitions in effect.")
    report_member: str | None = Field(default=None, description="Member holding the full report.")
    total: int = Field(default=0, ge=0, description="Number of redactions made.")
    by_kind: dict[str, int] = Field(default_factory=dict)
    files_redacted: int = 0
    files_skipped: int = 0
    obfuscate_network: bool = False


class RecipientInfo(RecordModel):
    fingerprint: str = Field(description="SHA256 fingerprint of the recipient's X25519 public key.")
    comment: str | None = None


class EncryptionInfo(RecordModel):
    mode: Literal["password", "recipient"]
    cipher: str = Field(default="winzip-aes-256-ae2", description="Member encryption scheme.")
    recipients: list[RecipientInfo] = Field(default_factory=list)


class Manifest(RecordModel):
    """Index and provenance of one bundle."""

    format: str = Field(default=FORMAT_VERSION, description="Bundle format, 'bundler/MAJOR.MINOR'.")
    tool: ToolInfo
    created_at: UTCDateTime = Field(description="When the bundle was finalized (UTC).")
    bundle_id: str = Field(description="Random id of this bundle.")
    command: str = Field(
        default="doctor", description="Which bundler command wrote it: doctor, redact, ..."
    )
    profile: str | None = Field(default=None, description="Product profile: flux, lyftdata, ...")
    target: TargetSummary = Field(default_factory=TargetSummary)
    options: dict[str, Any] = Field(
        default_factory=dict,
        description="Sanitized options used (never secrets, never the raw command line).",
    )
    members: list[MemberEntry] = Field(default_factory=list)
    collectors: list[CollectorOutcome] = Field(default_factory=list)
    redaction: RedactionSummary | None = None
    encryption: EncryptionInfo
    interrupted: bool = Field(default=False, description="True if the run was interrupted.")

    @field_validator("format")
    @classmethod
    def _known_major(cls, value: str) -> str:
        parse_format(value)
        return value

    def member(self, path: str) -> MemberEntry | None:
        """The entry for ``path``, or None."""
        for entry in self.members:
            if entry.path == path:
                return entry
        return None

    def members_with_schema(self, schema_name: str) -> list[MemberEntry]:
        return [m for m in self.members if m.schema_name == schema_name]
