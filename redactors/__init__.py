"""Secret detection and redaction for support bundles (pure transforms: no network, no bundler).

Public API::

    from redactors import BundleRedactor, Policy

    redactor = BundleRedactor(Policy(obfuscate_network=False))
    stored = redactor.member_name("hosts/h01/app.log")
    first = b"".join(redactor.transform(stored, chunks, media_type="text/plain"))
    final = b"".join(redactor.finalize(stored, [first], media_type="text/plain"))
    report = redactor.report()                  # schemas.RedactionReport, never values

    redactor.redact_object(api_response)        # parsed JSON: secrets by key name;
                                                # NestedTooDeep past 128 levels
    redactor.redact_text("error: bad password=hunter2")

``BundleRedactor`` implements ``bundler.archive.contracts.MemberTransform``
structurally. :func:`review_source` is the independent residual-secret scan
behind ``bundler review``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the names, for type checkers; at run time each loads on first use
    from .bundle import REPORT_MEMBER, BundleRedactor
    from .catalog import BUILTIN_RULES, RULESET_ID, all_kinds, ruleset_sha256
    from .custom import CustomRules, load_rules
    from .engine import Engine
    from .errors import MemberRefused, NestedTooDeep, RulesError, SegmentMisaligned
    from .keys import is_placeholder, secret_kind
    from .policy import Policy
    from .review import review_source
    from .rules import Hit, Rule, View
    from .stream import Segment
    from .tokens import TOKEN_RE, Tokenizer

_LAZY = {
    "BUILTIN_RULES": "catalog",
    "BundleRedactor": "bundle",
    "CustomRules": "custom",
    "Engine": "engine",
    "Hit": "rules",
    "MemberRefused": "errors",
    "NestedTooDeep": "errors",
    "Policy": "policy",
    "REPORT_MEMBER": "bundle",
    "RULESET_ID": "catalog",
    "Rule": "rules",
    "RulesError": "errors",
    "Segment": "stream",
    "SegmentMisaligned": "errors",
    "TOKEN_RE": "tokens",
    "Tokenizer": "tokens",
    "View": "rules",
    "all_kinds": "catalog",
    "is_placeholder": "keys",
    "load_rules": "custom",
    "review_source": "review",
    "ruleset_sha256": "catalog",
    "secret_kind": "keys",
}
"""Exported name -> the submodule defining it, loaded on first use: the review scanner and the
rule-file loader only when asked for (start-up, issue 19)."""


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
    "BUILTIN_RULES",
    "REPORT_MEMBER",
    "RULESET_ID",
    "TOKEN_RE",
    "BundleRedactor",
    "CustomRules",
    "Engine",
    "Hit",
    "MemberRefused",
    "NestedTooDeep",
    "Policy",
    "Rule",
    "RulesError",
    "Segment",
    "SegmentMisaligned",
    "Tokenizer",
    "View",
    "all_kinds",
    "is_placeholder",
    "load_rules",
    "review_source",
    "ruleset_sha256",
    "secret_kind",
]
