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

from collections.abc import Iterable
from functools import lru_cache

from .catalog import BUILTIN_RULES, FORMAT_RULE_IDS
from .rules import Rule, View

try:
    import ahocorasick_rs
except ImportError:  # pragma: no cover - exercised only without the wheel
    ahocorasick_rs = None  # type: ignore[assignment]

_FORMAT_RULES = tuple(rule for rule in BUILTIN_RULES if rule.id in FORMAT_RULE_IDS)
_ALIASES = {"url-password": "password"}


class _RuleFilter:
    """The format rules one of whose literals occurs in a value (or that have none), in
    order: one Aho-Corasick pass over the value instead of ``in`` per rule and literal
    (~200 of them, a fifth of a JSON listing's pass one when every event value is a token).
    """

    def __init__(self) -> None:
        self.always = frozenset(i for i, r in enumerate(_FORMAT_RULES) if not r.anchors)
        literals = sorted({a for r in _FORMAT_RULES for a in r.anchors or ()})
        self.rules_of = [
            frozenset(i for i, r in enumerate(_FORMAT_RULES) if r.anchors and a in r.anchors)
            for a in literals
        ]
        self.automaton = ahocorasick_rs.BytesAhoCorasick(literals) if ahocorasick_rs else None

    def candidates(self, value: bytes) -> Iterable[Rule]:
        if self.automaton is None:
            return [
                r
                for r in _FORMAT_RULES
                if not r.anchors or any(anchor in value for anchor in r.anchors)
            ]
        chosen = set(self.always)
        for index, _, _ in self.automaton.find_matches_as_indexes(value, overlapping=True):
            chosen |= self.rules_of[index]
        return [_FORMAT_RULES[i] for i in sorted(chosen)]


_FILTER: _RuleFilter | None = None


@lru_cache(maxsize=16384)
def format_kind(value: bytes) -> str | None:
    """The kind of the format rule that matches all of ``value``, if one does."""
    global _FILTER
    if len(value) < 8 or len(value) > 4096:
        return None
    if _FILTER is None:
        _FILTER = _RuleFilter()
    view = View(value)
    for rule in _FILTER.candidates(value):
        for hit in rule.hits(view):
            if hit.start == 0 and hit.end == len(value):
                return hit.kind
    return None


def canonical_kind(kind: str, value: bytes) -> str:
    """The kind a token for ``value`` carries, whichever rule found it as ``kind``."""
    return format_kind(value) or _ALIASES.get(kind, kind)
