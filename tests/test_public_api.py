"""The public names of ``redactors`` and ``bundler.archive`` are pinned.

Both are imported by other layers (and ``redactors`` by anyone who wants the
engine without bundler), so a name that appears or disappears from
``__all__`` is an API change: this test makes it a deliberate one. Change the
pinned list in the same commit, and say why in its message.
"""

from __future__ import annotations

import importlib

import pytest

PINNED = {
    "redactors": [
        "BUILTIN_RULES", "REPORT_MEMBER", "RULESET_ID", "TOKEN_RE", "BundleRedactor",
        "CustomRules", "Engine", "Hit", "MemberRefused", "NestedTooDeep", "Policy", "Rule",
        "RulesError",
        "Segment", "SegmentMisaligned", "Tokenizer", "View", "all_kinds", "is_placeholder",
        "load_rules", "review_source", "ruleset_sha256", "secret_kind",
    ],
    "bundler.archive": [
        "BundleBuilder", "BundleReader", "BundleSink", "DroppedMember", "EncryptedZipWriter",
        "ExtractResult", "Identity", "IdentityKey", "IntegrityProblem", "IntegrityReport",
        "KeySource", "MemberDropped", "MemberTransform", "MemberUnsound", "MemorySink",
        "NoRedaction", "PasswordKey", "PublicKey", "ReaderLimits", "SealedBundle", "Sealing",
        "Secret", "SpoolSource", "VerifyReport", "extract_bundle", "fingerprint",
        "generate_password", "keygen", "open_bundle", "resolve_open", "resolve_seal",
        "verify_bundle",
    ],
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(PINNED))
def test_public_names_are_pinned(name: str) -> None:
    module = importlib.import_module(name)
    assert sorted(module.__all__) == sorted(PINNED[name])
    assert len(set(module.__all__)) == len(module.__all__)


@pytest.mark.parametrize("name", sorted(PINNED))
def test_every_public_name_is_defined(name: str) -> None:
    module = importlib.import_module(name)
    missing = [n for n in module.__all__ if not hasattr(module, n)]
    assert missing == []
