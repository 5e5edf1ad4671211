"""Bundle archives: the encrypted streaming writer, the hostile-proof reader, sealing.

Writing a bundle::

    sealing = resolve_seal(seal_options)      # from @seal_options: env, file, generated, recipients
    with BundleBuilder(path, sealing=sealing, transform=redactor, overwrite=force) as bundle:
        bundle.add("raw/http/workers.json", chunks, media_type="application/json")
        live = bundle.source()                # MemberSource over the encrypted spool
        bundle.finalize(profile="flux", target=target, options=opts, collectors=outcomes)

Reading one (a :class:`~bundler.source.MemberSource`)::

    with open_bundle(path, open_secrets, lenient=True) as bundle:
        integrity = bundle.check()                        # verified / tampered / partial
        data = bundle.read_bytes("evidence/workers.json")

What stays visible without the password: member names, sizes (exact
uncompressed, approximate compressed), the bundle's creation time on every
member, the number and order of members, and the zip comment (in recipient
mode: the recipients' key fingerprints). Contents, including the manifest,
are AES-256 encrypted and authenticated per member.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the names, for type checkers; at run time each loads on first use
    from .builder import BundleBuilder
    from .contracts import BundleSink, MemberDropped, MemberTransform, MemorySink
    from .extract import ExtractResult, extract_bundle
    from .finalizing import DroppedMember, SealedBundle
    from .integrity import IntegrityProblem, IntegrityReport, MemberUnsound
    from .integrity.verify import VerifyReport, verify_bundle
    from .keys import Identity, PublicKey, fingerprint, keygen
    from .limits import ReaderLimits
    from .opening import open_bundle
    from .passwords import (
        IdentityKey,
        KeySource,
        PasswordKey,
        Sealing,
        generate_password,
        resolve_open,
        resolve_seal,
    )
    from .reader import BundleReader
    from .secret import Secret
    from .spool_source import SpoolSource
    from .transform import NoRedaction
    from .zipwriter import EncryptedZipWriter

_LAZY = {
    "BundleBuilder": "builder",
    "BundleReader": "reader",
    "BundleSink": "contracts",
    "DroppedMember": "finalizing",
    "EncryptedZipWriter": "zipwriter",
    "ExtractResult": "extract",
    "Identity": "keys",
    "IdentityKey": "passwords",
    "IntegrityProblem": "integrity",
    "IntegrityReport": "integrity",
    "KeySource": "passwords",
    "MemberDropped": "contracts",
    "MemberTransform": "contracts",
    "MemberUnsound": "integrity",
    "MemorySink": "contracts",
    "NoRedaction": "transform",
    "PasswordKey": "passwords",
    "PublicKey": "keys",
    "ReaderLimits": "limits",
    "SealedBundle": "finalizing",
    "Sealing": "passwords",
    "Secret": "secret",
    "SpoolSource": "spool_source",
    "VerifyReport": "integrity.verify",
    "extract_bundle": "extract",
    "fingerprint": "keys",
    "generate_password": "passwords",
    "keygen": "keys",
    "open_bundle": "opening",
    "resolve_open": "passwords",
    "resolve_seal": "passwords",
    "verify_bundle": "integrity.verify",
}
"""Exported name -> the submodule defining it, loaded on first use: ``bundler redact`` into a
bundle needs the writer, not the reader, extractor and verifier (start-up, issue 19)."""


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})


__all__ = [
    "BundleBuilder",
    "BundleReader",
    "BundleSink",
    "DroppedMember",
    "EncryptedZipWriter",
    "ExtractResult",
    "Identity",
    "IdentityKey",
    "IntegrityProblem",
    "IntegrityReport",
    "KeySource",
    "MemberDropped",
    "MemberTransform",
    "MemberUnsound",
    "MemorySink",
    "NoRedaction",
    "PasswordKey",
    "PublicKey",
    "ReaderLimits",
    "SealedBundle",
    "Sealing",
    "Secret",
    "SpoolSource",
    "VerifyReport",
    "extract_bundle",
    "fingerprint",
    "generate_password",
    "keygen",
    "open_bundle",
    "resolve_open",
    "resolve_seal",
    "verify_bundle",
]
