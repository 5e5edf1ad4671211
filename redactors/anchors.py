"""One pass finds where every literal-first rule could match, instead of one pass per rule.

Every rule's pattern starts with a literal (:func:`~redactors.rules.literal_prefixes`
reads it from the compiled pattern), so a match can only begin where one of
its literals occurs. CPython's ``re`` skips ahead to a literal at 0.5 to 2 ms
per MiB *for each rule*; with three dozen rules that was most of the
engine's time. An Aho-Corasick automaton (``ahocorasick_rs``, already used
for literal propagation) over all the rules' literals finds every occurrence
in one pass of about 2 ms per MiB, and each rule then tries ``re.match`` only
where its own literals are (:func:`~redactors.rules.matches_at`): the same matches
``finditer`` gives, in the same order.

A literal of one byte, or of two starting with white space, occurs thousands
of times in a MiB of logs: trying a match at each costs more than the rule's
own scan, so such rules are not indexed and keep ``finditer``. So does a rule
whose literals turn out to be that common in one particular text
(:data:`DENSE`). Without the ``ahocorasick_rs`` wheel nothing is indexed.

The pass runs over the lower-cased text only: a case-sensitive literal is searched
lower-cased too, and each place it is found there is kept only where the text itself
holds the literal (``bytes.lower`` changes ASCII letters only, so the places are the
same). Two passes (the text, then its twin for the case-insensitive rules) cost twice
the scan for a few thousand more checks. The same pass says which of the other scans'
literals occur (:data:`MARKERS`: the PEM scanner's, the escape decoders', the block
anchors'), so a text without them skips those scans (``View.markers``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .decode import BLOCK_ANCHORS, CONFUSABLE_STARTS, ZLIB_ANCHORS
from .prefilter import PEM_MARKERS
from .rules import Rule, View

try:
    import ahocorasick_rs
except ImportError:  # pragma: no cover - exercised only without the wheel
    ahocorasick_rs = None  # type: ignore[assignment]

DENSE = 256
"""A rule with more than one occurrence per this many bytes of text runs its own scan."""

MARKERS: dict[str, tuple[bytes, ...]] = {
    "pem": PEM_MARKERS,
    "ansi": (b"\x1b[",),
    "json-escape": (b"\\u00",),
    "html-entity": (b"&quot", b"&#"),
    "percent": (b"%3A", b"%3a", b"%3D", b"%3d", b"%40"),
    "confusable": CONFUSABLE_STARTS,
    "block": BLOCK_ANCHORS,
    "zlib": ZLIB_ANCHORS,
}
"""Literals every match of another scan starts with (the PEM scanner, each escape decoder, the
block anchors, the zlib ones): ``positions`` reports which occur (``View.markers``), the
others are skipped."""
UNINDEXED_MARKERS = frozenset({"confusable"})
"""Markers the Aho-Corasick pass does not look for (the confusable starts include single
bytes, found on every line of Cyrillic text): always reported, the decoder checks itself."""

_Owner = tuple[int, bytes | None]
"""A rule's index (a marker: ``~`` its place in ``_ac_markers``, below zero), and the
literal to check in the text itself (None: a case-insensitive rule's literal, found in the
lower-cased text as it is meant to be)."""


class AnchorIndex:
    """Where each indexed rule's literals occur in a view, found in one pass over its
    lower-cased text."""

    def __init__(self, rules: Sequence[Rule]) -> None:
        self._ac: Any = None
        self._ac_owners: list[tuple[_Owner, ...]] = []
        self._ac_markers: list[str] = []
        self._zlib_marker = 0
        self.indexed: frozenset[int] = frozenset()
        if ahocorasick_rs is None:
            return
        indexed = set()
        patterns: dict[bytes, list[_Owner]] = {}
        for index, rule in enumerate(rules):
            if rule.scanner is not None or not indexable(rule):
                continue
            indexed.add(index)
            for anchor in rule.anchors or ():
                if not rule.lower:
                    patterns.setdefault(anchor.lower(), []).append((index, anchor))
                elif anchor == anchor.lower():  # else never in the lower-cased text: no match
                    patterns.setdefault(anchor, []).append((index, None))
        for name, literals in MARKERS.items():
            if name not in UNINDEXED_MARKERS:
                marker = ~len(self._ac_markers)
                self._ac_markers.append(name)
                if name == "zlib":
                    self._zlib_marker = marker
                for literal in literals:
                    patterns.setdefault(literal.lower(), []).append((marker, literal))
        # A DFA: with a hundred vendor prefixes the default NFA scans 3x slower,
        # the DFA as fast as with twenty (one table lookup per byte).
        self._ac = ahocorasick_rs.BytesAhoCorasick(
            list(patterns), implementation=ahocorasick_rs.Implementation.DFA
        )
        self._ac_owners = [tuple(owners) for owners in patterns.values()]
        self.indexed = frozenset(indexed)

    def positions(self, view: View) -> dict[int, list[int] | None]:
        """Rule index -> sorted start offsets of its literals, for indexed rules whose
        literals occur; an indexed rule missing from the result cannot match. Sets
        ``view.markers``.

        A rule whose literals are too common in this text maps to None: it
        runs its own ``finditer``.
        """
        found: dict[int, list[int] | None] = {}
        if self._ac is None:
            return found
        data = view.data
        startswith = data.startswith
        seen: set[int] = set()
        owners = self._ac_owners
        zlib, zlib_starts = self._zlib_marker, []
        for pattern, start, _ in self._ac.find_matches_as_indexes(view.low, overlapping=True):
            for owner, exact in owners[pattern]:
                if exact is not None and not startswith(exact, start):
                    continue
                if owner < 0:
                    seen.add(owner)
                    if owner == zlib:
                        zlib_starts.append(start)
                    continue
                starts = found.get(owner)
                if starts is None:
                    found[owner] = [start]
                else:
                    starts.append(start)
        names = self._ac_markers
        view.markers = UNINDEXED_MARKERS.union(names[~marker] for marker in seen)
        view.zlib_starts = sorted(zlib_starts)
        return settle(found, len(data))


def settle(found: dict[int, list[int] | None], size: int) -> dict[int, list[int] | None]:
    """Sort each rule's starts, or mark the rule dense (``None``: ``finditer`` is cheaper).

    Shared by the Aho-Corasick index and the Hyperscan accelerator, so both give the
    engine the same dictionary for the same text.
    """
    limit = size // DENSE + 16
    for index, starts in found.items():
        if starts is None:
            continue
        if len(starts) > limit:
            found[index] = None
        elif len(starts) > 1:
            starts.sort()
    return found


def indexable(rule: Rule) -> bool:
    """Whether a rule's literals are worth indexing: none of one byte, and none of two that
    starts with white space (`` -`` is in every log line; `` -p`` is not)."""
    anchors = rule.anchors
    return bool(anchors) and all(
        len(a) > 2 or (len(a) == 2 and a[:1] not in b" \t\r\n") for a in anchors or ()
    )
