"""Where doctor's evidence goes: the bundle builder (``--bundle``) or memory (``--json`` only).

Both redact everything before it is stored. The bundle builder
(:mod:`bundler.archive.builder`) and the redaction engine
(:mod:`redactors`) are separate packages; this module is the one place
that binds doctor to them.

INTEGRATION POINT: ``bundler.archive.builder`` and ``redactors.bundle`` are
built in parallel (branches ``archive`` and ``redact``). Until they are on
main, ``--bundle`` stops with a one-line error instead of writing anything
unredacted, and ``--json`` runs in memory with an identity transform (nothing
reaches disk; the verdict printed is the user's own data). With the builder
present, a run without ``--bundle`` uses its encrypted spool and throws it away.
"""

from __future__ import annotations

import importlib
import secrets
import shutil
import tempfile
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from schemas import MemberEntry

from ..archive.contracts import MemberDropped, MemberTransform
from ..cli.options import SealOptions
from ..errors import UsageError
from ..source import MemberSource, MemorySource


def _optional(module: str) -> Any | None:
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError:
        return None


def redaction_transform(secrets: Sequence[str] = ()) -> MemberTransform | None:
    """The redaction engine for one bundle, told the secrets doctor itself holds (the token)."""
    bundle = _optional("redactors.bundle")
    policy = _optional("redactors.policy")
    if bundle is None or policy is None:
        return None
    transform: MemberTransform = bundle.BundleRedactor(
        policy.Policy(keywords=tuple(s for s in secrets if s))
    )
    return transform


def open_bundle(path: Path, seal: SealOptions, transform: MemberTransform | None) -> Any:
    """A ``BundleBuilder`` for ``path``; refuses to write anything it could not redact."""
    builder = _optional("bundler.archive.builder")
    passwords = _optional("bundler.archive.passwords")
    if builder is None or passwords is None:
        raise UsageError(
            "this build cannot write bundles yet (bundler.archive.builder is missing)",
            hint="run `bundler doctor --json` for a live check without a bundle",
        )
    if transform is None:
        raise UsageError(
            "this build cannot redact bundles yet (the redactors package is missing); "
            "refusing to write evidence unredacted"
        )
    sealing = passwords.resolve_seal(seal)
    return builder.BundleBuilder(path, sealing=sealing, transform=transform)


def open_live(transform: MemberTransform | None) -> Any:
    """The sink of a run without ``--bundle``: nothing is kept once the run ends.

    With the bundle builder available, members go to its encrypted spool in a
    private temporary directory (ephemeral key: nothing readable on disk, and
    memory stays flat however many hosts); otherwise they are held in memory.
    """
    builder = _optional("bundler.archive.builder")
    passwords = _optional("bundler.archive.passwords")
    if builder is None or passwords is None:
        return LiveSink(transform)
    return LiveSpool(builder.BundleBuilder, passwords.Sealing, transform)


class LiveSpool:
    """A bundle builder that is never finalized: its spool lives in a temporary directory."""

    def __init__(self, builder_class: Any, sealing_class: Any, transform: MemberTransform | None):
        self._directory = Path(tempfile.mkdtemp(prefix="bundler-live-"))
        sealing = sealing_class.with_password(secrets.token_urlsafe(32))
        self._builder = builder_class(
            self._directory / "live.zip", sealing=sealing, transform=transform
        )
        self.add = self._builder.add
        self.source = self._builder.source
        self.redact_text = self._builder.redact_text

    def abort(self) -> None:
        self._builder.abort()
        shutil.rmtree(self._directory, ignore_errors=True)


class LiveSink:
    """Members held in memory, redacted like a bundle's: for ``doctor --json`` without a bundle."""

    def __init__(self, transform: MemberTransform | None = None) -> None:
        self.transform = transform
        self._source = MemorySource()
        self.entries: dict[str, MemberEntry] = {}

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
    ) -> MemberEntry | None:
        import hashlib

        chunks = [content] if isinstance(content, bytes) else list(content)
        if self.transform is not None:
            name = self.transform.member_name(name)
            try:
                data = b"".join(self.transform.transform(name, chunks, media_type=media_type))
            except MemberDropped:
                return None
        else:
            data = b"".join(chunks)
        self._source.add(name, data)
        entry = MemberEntry(
            path=name,
            sha256=hashlib.sha256(data).hexdigest(),
            size=len(data),
            media_type=media_type,
            schema_name=schema_name,
            collector=collector,
            truncated=truncated,
            valid=valid,
        )
        self.entries[name] = entry
        return entry

    def source(self) -> MemberSource:
        return self._source

    def redact_text(self, text: str) -> str:
        return self.transform.redact_text(text) if self.transform is not None else text
