"""One value, one token: the kind in a token comes from the value's format when it has one.

The HMAC suffix of a token depends on the value only; the kind in front of it
depends on what found the value. ``token=ghp_...`` (a key/value rule: kind
``token``) and ``https://x-access-token:ghp_...@github.com`` (the URL rule:
``url-password``) and the bare ``ghp_...`` (the GitHub rule) are one secret,
and an analyst correlating tokens must see one token. So a value that a
format rule recognises whole takes that rule's kind whichever rule found it,
and a URL's password is a ``password`` like any other. This is a function of
the value alone, so parallel workers agree without talking to each other.
"""

from __future__ import annotations

from functools import lru_cache

from .catalog import BUILTIN_RULES, FORMAT_RULE_IDS
from .rules import View

_FORMAT_RULES = tuple(rule for rule in BUILTIN_RULES if rule.id in FORMAT_RULE_IDS)
_ALIASES = {"url-password": "password"}


@lru_cache(maxsize=16384)
def format_kind(value: bytes) -> str | None:
    """The kind of the format rule that matches all of ``value``, if one does."""
    if len(value) < 8 or len(value) > 4096:
        return None
    view = View(value)
    for rule in _FORMAT_RULES:
        if rule.anchors and not any(anchor in value for anchor in rule.anchors):
            continue
        for hit in rule.hits(view):
            if hit.start == 0 and hit.end == len(value):
                return hit.kind
    return None


def canonical_kind(kind: str, value: bytes) -> str:
    """The kind a token for ``value`` carries, whichever rule found it as ``kind``."""
    return format_kind(value) or _ALIASES.get(kind, kind)
