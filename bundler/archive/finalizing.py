"""The last steps of a bundle: literal propagation per member, the redaction report, the manifest.

Split from the builder so each piece is small and testable: how a dropped
member is reported, what the manifest says, and how caller-provided manifest
fields are redacted: the target and options once, here; the collectors' outcomes,
redacted once by whoever made them, only get the second pass members get.
"""

from __future__ import annotations

import itertools
import platform
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, get_args

from pydantic import TypeAdapter

from schemas import (
    REDACTION_REPORT_MEMBER,
    REDACTION_REPORT_SCHEMA,
    CollectorOutcome,
    EncryptionInfo,
    FileRedaction,
    Manifest,
    RedactionReport,
    SkippedFile,
    TargetSummary,
    ToolInfo,
)

from .. import __version__
from .contracts import MemberDropped, MemberTransform
from .json_chunks import indented_chunks
from .manifest_draft import ManifestDraft, redact_target
from .passwords import Sealing
from .spool import EncryptedSpool, SpoolFile
from .stored import StoredMember
from .zipwriter import EncryptedZipWriter

_SKIP_REASONS = set(get_args(SkippedFile.model_fields["reason"].annotation))


def drop_signals() -> tuple[type[Exception], ...]:
    """The exceptions that mean "leave this member out".

    :class:`MemberDropped`, and the redaction layer's own ``MemberRefused``
    (same ``reason``/``detail`` shape): ``redactors`` may not import
    ``bundler``, so the builder recognises its exception here, where the
    import points the allowed way (bundler -> redactors).
    """
    from redactors.errors import MemberRefused

    return (MemberDropped, MemberRefused)


class SealedBundle:
    """A finished bundle: where it is and its manifest.

    The manifest as one model (every member's and collector's record) is made when
    first asked for: sealing writes it a record at a time (:mod:`.manifest_draft`), and a
    caller that only wants the encryption mode need not hold a fleet's 21,000 records.
    """

    def __init__(
        self, path: Path, draft: ManifestDraft, uncompressed: tuple[str, ...] = ()
    ) -> None:
        self.path = path
        self._draft = draft
        self._manifest: Manifest | None = None
        self.uncompressed = uncompressed
        """Members stored uncompressed: they compressed past the readers' ratio limit
        (:mod:`.uncompressed`); the manifest does not say it, the zip does."""

    @property
    def encryption(self) -> EncryptionInfo:
        return self._draft.shell.encryption

    @property
    def manifest(self) -> Manifest:
        if self._manifest is None:
            self._manifest = self._draft.complete()
        return self._manifest


@dataclass(frozen=True, slots=True)
class Spooled:
    """A member waiting in the spool, with its entry as first stored."""

    file: SpoolFile
    entry: StoredMember


@dataclass(frozen=True, slots=True)
class Precompressed:
    """A member that arrives final and already deflated (``bundler redact``'s pool path).

    ``open`` gives the raw deflate stream each time it is called (it may be
    read again after a failed attempt); ``size`` and ``sha256`` describe the
    plaintext. The caller has already run literal propagation over it: the
    builder writes it as is, without ``transform.finalize``.
    """

    open: Callable[[], Iterable[bytes]]
    entry: StoredMember
    sealed: bool = False
    """``open`` gives the stream encrypted already (:func:`.sealed.seal`): only copied."""


@dataclass(frozen=True)
class DroppedMember:
    """A member the transform refused to store, and why (reported, never silently lost)."""

    name: str
    reason: str
    detail: str = ""


def stream_finalized(
    transform: MemberTransform, entry: StoredMember, chunks: Iterable[bytes]
) -> Iterator[bytes] | DroppedMember:
    """``transform.finalize`` over a spooled member, or the drop it asked for.

    The first chunk is pulled before anything reaches the zip, so a
    :class:`MemberDropped` raised up front leaves no trace in the archive.
    """
    try:
        stream = iter(transform.finalize(entry.path, chunks, media_type=entry.media_type))
        first = next(stream, None)
    except drop_signals() as dropped:
        return DroppedMember(
            entry.path, getattr(dropped, "reason", "policy"), getattr(dropped, "detail", "")
        )
    if first is None:
        return iter(())
    return itertools.chain((first,), stream)


def write_members(
    writer: EncryptedZipWriter,
    transform: MemberTransform,
    spool: EncryptedSpool,
    members: Mapping[str, Spooled | Precompressed],
    dropped: dict[str, DroppedMember],
) -> list[StoredMember]:
    """Spool -> ``transform.finalize`` -> zip, in name order; rows get the final hashes.

    :class:`Precompressed` members are final already: they are only encrypted (or,
    sealed, only copied). The rows are set in place, not copied: the builder is closed
    and they are the manifest's now (:mod:`.manifest_draft` makes each entry from its
    row as the manifest is written).
    """
    entries: list[StoredMember] = []
    for name in sorted(members):
        spooled = members[name]
        if isinstance(spooled, Precompressed):
            entry = spooled.entry
            write = writer.write_preencrypted if spooled.sealed else writer.write_precompressed
            write(name, spooled.open(), size=entry.size, sha256=entry.sha256)
            entries.append(entry)
            continue
        finalized = stream_finalized(transform, spooled.entry, spool.read(spooled.file))
        if isinstance(finalized, DroppedMember):
            dropped[name] = finalized
            continue
        written = writer.write_member(name, finalized)
        entry = spooled.entry
        entry.sha256, entry.size = written.sha256, written.size
        entries.append(entry)
    return entries


def write_report(
    writer: EncryptedZipWriter, transform: MemberTransform, dropped: Sequence[DroppedMember]
) -> StoredMember:
    """Write the redaction report member; members dropped here are listed as skipped."""
    report = merge_dropped(transform.report(), dropped)
    written = writer.write_member(REDACTION_REPORT_MEMBER, report_chunks(report))
    return StoredMember(
        path=REDACTION_REPORT_MEMBER,
        sha256=written.sha256,
        size=written.size,
        media_type="application/json",
        schema_name=REDACTION_REPORT_SCHEMA,
    )


REPORT_JSON = TypeAdapter(RedactionReport)
REPORT_LISTS: dict[str, TypeAdapter[Any]] = {"files": TypeAdapter(FileRedaction)}
"""The report's list that grows with the bundle: one entry per member."""


def report_chunks(report: RedactionReport) -> Iterator[bytes]:
    """The report's ``indent=2`` JSON by alias, in pieces (a fleet's is about 1 MB)."""
    return indented_chunks(report, REPORT_JSON, REPORT_LISTS, by_alias=True)


def merge_dropped(report: RedactionReport, dropped: Sequence[DroppedMember]) -> RedactionReport:
    """Add each dropped member to ``report.skipped`` unless the transform already listed it."""
    listed = {skipped.member for skipped in report.skipped}
    extra = [
        SkippedFile(
            member=drop.name,
            reason=drop.reason if drop.reason in _SKIP_REASONS else "policy",  # type: ignore[arg-type]
            detail=drop.detail or (None if drop.reason in _SKIP_REASONS else drop.reason),
        )
        for drop in dropped
        if drop.name not in listed
    ]
    if not extra:
        return report
    return report.model_copy(update={"skipped": [*report.skipped, *extra]})


@dataclass(frozen=True)
class ManifestFields:
    """The manifest fields a caller (``doctor``, ``redact``) owns; the builder adds the rest.

    ``target`` and ``options`` are given as they are and redacted when the manifest is
    built; ``collectors`` come redacted already (every string ``OWN_FIELDS`` does not
    name passed through the bundle's ``redact_text`` once: doctor's recorder does it as
    each collector settles), and only get the second pass.
    """

    command: str = "doctor"
    profile: str | None = None
    target: TargetSummary | None = None
    options: Mapping[str, Any] | None = None
    collectors: Sequence[CollectorOutcome] = ()
    interrupted: bool = False


def build_manifest(
    transform: MemberTransform,
    sealing: Sealing,
    fields: ManifestFields,
    *,
    created_at: datetime,
    bundle_id: str,
    members: list[StoredMember],
) -> ManifestDraft:
    """The manifest to write: its fields now, its members and collectors as it is written."""
    summary = transform.summary()
    if summary.report_member is None:
        summary = summary.model_copy(update={"report_member": REDACTION_REPORT_MEMBER})
    redact = transform.redact_text
    shell = Manifest(
        tool=ToolInfo(version=__version__, python=platform.python_version()),
        created_at=created_at,
        bundle_id=bundle_id,
        command=fields.command,
        profile=fields.profile,
        target=redact_target(fields.target or TargetSummary(), redact),
        options=redact_values(dict(fields.options or {}), redact),
        redaction=summary,
        encryption=sealing.encryption_info(),
        interrupted=fields.interrupted,
    )
    # The collectors' strings were redacted once, by the recorder, as each collector
    # settled (the live verdict and the summary read them so): here they only get the
    # second pass, as members do. Redacting them again would pseudonymize a pseudonym.
    return ManifestDraft(shell, members, fields.collectors, transform.finalize_text)


def redact_values(value: Any, redact: Any) -> Any:
    """Every string inside ``value`` (dicts, lists) passed through ``redact``."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, Mapping):
        return {key: redact_values(item, redact) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [redact_values(item, redact) for item in value]
    return value
