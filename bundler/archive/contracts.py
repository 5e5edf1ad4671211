"""The two seams around the archive: what it asks of redaction, and what collectors write to.

:class:`MemberTransform` is implemented by the redaction layer
(``redactors``, structurally: it cannot import ``bundler``). The bundle
builder calls it on every member name and every byte before anything reaches
disk, then once more per member at finalization, when literals learned
anywhere in the bundle are propagated to every member.

:class:`BundleSink` is what collectors write to. The real sink is the bundle
builder (redact -> encrypted spool -> zip); tests may use
:class:`MemorySink`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Protocol

from schemas import RedactionReport, RedactionSummary

from ..source import MemberSource, MemorySource
from .stored import StoredMember


class MemberDropped(Exception):
    """Raised by a transform to leave a member out (e.g. binary content); the reason is kept."""

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason
        self.detail = detail


class MemberTransform(Protocol):
    def member_name(self, name: str) -> str:
        """The name to store (secrets, emails, pseudonymized hosts removed)."""
        ...

    def transform(self, name: str, chunks: Iterable[bytes], *, media_type: str) -> Iterator[bytes]:
        """First pass, streaming: redact by rules and structure; learn redacted literals.

        May raise :class:`MemberDropped` before yielding anything.
        """
        ...

    def transform_derived(
        self, name: str, chunks: Iterable[bytes], *, media_type: str
    ) -> Iterator[bytes]:
        """First pass over a text made only of what the bundle holds redacted already (a
        document derived from its members): the secret rules, no pseudonyms.

        On redacted text the secret rules are a fixed point, but a new document can give a
        value new context; the pseudonyms were made where the text entered, and making
        them again is not idempotent (an address pseudonym is an address).
        """
        ...

    def finalize(self, name: str, chunks: Iterable[bytes], *, media_type: str) -> Iterator[bytes]:
        """Second pass at the end of the run: remove every literal learned anywhere."""
        ...

    def redact_text(self, text: str) -> str:
        """Redact a short string (an error message, an option value) in one call."""
        ...

    def finalize_text(self, text: str) -> str:
        """Second pass over a short string :meth:`redact_text` already redacted: remove every
        literal learned since, and nothing else (redacting it again is not idempotent:
        ``--obfuscate network`` would pseudonymize a pseudonym)."""
        ...

    def report(self) -> RedactionReport: ...

    def summary(self) -> RedactionSummary: ...


class BundleSink(Protocol):
    def add(
        self,
        name: str,
        content: bytes | Iterable[bytes],
        *,
        media_type: str = "application/octet-stream",
        schema_name: str | None = None,
        collector: str | None = None,
        truncated: bool = False,
        valid: bool | None = None,
    ) -> StoredMember | None:
        """Store a member; returns what was stored, or None if the transform dropped it."""
        ...

    def source(self) -> MemberSource:
        """Read back what was added so far (as stored: redacted)."""
        ...

    def redact_text(self, text: str) -> str:
        """Redact a short string (an error message) before it goes into the manifest."""
        ...

    def abort(self) -> None:
        """Forget everything added; nothing is written. Idempotent, safe after a failure."""
        ...


class MemorySink:
    """A sink that keeps members in memory, untransformed. For tests only."""

    def __init__(self) -> None:
        self._source = MemorySource()
        self.entries: list[StoredMember] = []
        self.aborted = False

    def add(
        self,
        name: str,
        content: bytes | Iterable[bytes],
        *,
        media_type: str = "application/octet-stream",
        schema_name: str | None = None,
        collector: str | None = None,
        truncated: bool = False,
        valid: bool | None = None,
    ) -> StoredMember | None:
        import hashlib

        data = content if isinstance(content, bytes) else b"".join(content)
        self._source.add(name, data)
        entry = StoredMember(
            path=name,
            sha256=hashlib.sha256(data).hexdigest(),
            size=len(data),
            media_type=media_type,
            schema_name=schema_name,
            collector=collector,
            truncated=truncated,
            valid=valid,
        )
        self.entries = [e for e in self.entries if e.path != name] + [entry]
        return entry

    def add_derived(
        self,
        name: str,
        content: bytes,
        *,
        media_type: str = "application/octet-stream",
        schema_name: str | None = None,
    ) -> StoredMember | None:
        """A document made of what the sink holds (doctor's evidence): kept as :meth:`add`."""
        return self.add(name, content, media_type=media_type, schema_name=schema_name)

    def source(self) -> MemberSource:
        return self._source

    def redact_text(self, text: str) -> str:
        return text

    def abort(self) -> None:
        """Mark the sink aborted; the members stay, so a test can still look at them."""
        self.aborted = True
