"""Open a bundle for analysis: a sealed zip or an extracted directory, never the network.

Both kinds end up as a :class:`VerifyingSource` over the members plus the
parsed manifest, so the analysis cannot tell them apart. Problems that make a
bundle unusable (nothing there, an unknown format major, a zip we cannot
decrypt) are one-line :mod:`bundler.errors`; problems that only make it
*untrustworthy* (missing or schema-invalid manifest, checksum mismatches,
missing members) are collected and reported at the top of the analysis.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING

from pydantic import ValidationError

from schemas import MANIFEST_MEMBER, Integrity, Manifest
from schemas.evidence import ProductInfo
from schemas.manifest import UnsupportedFormatError, parse_format

from ..errors import InputError, NotABundle, UsageError
from ..jsondoc import JsonRefused
from ..source import DirectorySource, JsonTooLarge, MemberSource, read_json
from .api import EvidenceSet
from .verify import VerifyingSource

if TYPE_CHECKING:
    from ..products.base import Profile
    from ..secret_options import OpenSecrets


@dataclass
class OpenedBundle:
    """A bundle ready to analyze; use as a context manager so zip handles are closed."""

    source: VerifyingSource
    manifest: Manifest | None
    problems: list[str] = field(default_factory=list)
    _close: Callable[[], None] | None = None

    def evidence(self) -> EvidenceSet:
        return EvidenceSet(self.source, manifest=self.manifest)

    def integrity(self) -> Integrity:
        """Verify whatever the analysis did not read; call after analyzing."""
        return self.source.finish(self.problems)

    def close(self) -> None:
        if self._close is not None:
            self._close()
            self._close = None

    def __enter__(self) -> OpenedBundle:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def open_for_analysis(path: Path, secrets: OpenSecrets | None = None) -> OpenedBundle:
    """Open ``path`` (directory or zip) read-only. Raises :class:`InputError` subclasses."""
    if path.is_dir():
        return _from_source(DirectorySource(path), str(path))
    if not path.exists():
        raise InputError(f"{path}: no such file or directory")
    return _open_zip(path, secrets)


def _from_source(
    source: MemberSource,
    label: str,
    close: Callable[[], None] | None = None,
    problems: list[str] | None = None,
) -> OpenedBundle:
    names = source.names()
    manifest, found = read_manifest(source)
    if manifest is None and not any(n.startswith("evidence/") for n in names):
        raise NotABundle(
            f"{label} holds no bundle (no {MANIFEST_MEMBER} and no evidence/ members)",
            hint="pass a bundle written by `bundler doctor`, or a directory it was extracted to",
        )
    return OpenedBundle(
        source=VerifyingSource(source, manifest),
        manifest=manifest,
        problems=[*(problems or []), *found],
        _close=close,
    )


def read_manifest(source: MemberSource) -> tuple[Manifest | None, list[str]]:
    """The manifest and what was wrong with it; an unknown format major is refused outright."""
    if not source.has(MANIFEST_MEMBER):
        return None, [f"no {MANIFEST_MEMBER}: checksums cannot be verified"]
    try:
        data = read_json(source, MANIFEST_MEMBER)
    except (JsonRefused, JsonTooLarge) as exc:  # named: say which rule or limit it broke
        return None, [f"{exc}: checksums cannot be verified"]
    except ValueError:
        return None, [f"{MANIFEST_MEMBER} is not valid JSON: checksums cannot be verified"]
    if isinstance(data, dict) and isinstance(data.get("format"), str):
        try:
            parse_format(data["format"])
        except UnsupportedFormatError as exc:
            raise NotABundle(str(exc)) from exc
    try:
        return Manifest.model_validate(data), []
    except ValidationError as exc:
        first = exc.errors()[0]
        where = "/".join(str(p) for p in first["loc"])
        return None, [f"{MANIFEST_MEMBER} is invalid at /{where}: {first['msg']}"]


def _open_zip(path: Path, secrets: OpenSecrets | None) -> OpenedBundle:
    """A sealed bundle through the archive's hostile-proof reader, in lenient mode.

    The reader verifies every member as it streams (sha256, AES MAC, size) and
    hides unsound ones; lenient mode records problems instead of raising, so a
    tampered or partial bundle is still analyzed and flagged.
    """
    from ..archive.opening import open_bundle as open_zip_bundle  # pyzipper: only when needed

    reader = open_zip_bundle(path, secrets, lenient=True)
    try:
        reader.derive_keys_ahead()  # an analysis reads every member (integrity pass)
        source = VerifyingSource(
            reader, reader.manifest, inner_report=lambda: reader.integrity.to_schema()
        )
    except BaseException:
        reader.close()
        raise
    return OpenedBundle(source=source, manifest=reader.manifest, _close=reader.close)


def profile_for(manifest: Manifest | None, evidence: EvidenceSet) -> Profile | None:
    """The product profile the bundle was collected with, when this bundler has it."""
    name = manifest.profile if manifest is not None else None
    if name is None:
        info = evidence.get(ProductInfo)
        name = info.name if info is not None else None
    if name is None:
        return None
    from ..products import get_profile

    try:
        return get_profile(name)
    except (ImportError, UsageError, AttributeError):
        return None
