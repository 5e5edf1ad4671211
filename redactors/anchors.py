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
"""

from __future__ import annotations

from collections.abc import Sequence

from .rules import Rule, View

try:
    import ahocorasick_rs
except ImportError:  # pragma: no cover - exercised only without the wheel
    ahocorasick_rs = None  # type: ignore[assignment]

DENSE = 256
"""A rule with more than one occurrence per this many bytes of text runs its own scan."""


class AnchorIndex:
    """Where each indexed rule's literals occur in a view, found in one pass per text form."""

    def __init__(self, rules: Sequence[Rule]) -> None:
        self._passes: list[tuple[bool, object, list[tuple[int, ...]]]] = []
        self.indexed: frozenset[int] = frozenset()
        if ahocorasick_rs is None:
            return
        indexed = set()
        for lower in (False, True):
            patterns: dict[bytes, list[int]] = {}
            for index, rule in enumerate(rules):
                if rule.scanner is not None or rule.lower != lower or not indexable(rule):
                    continue
                indexed.add(index)
                for anchor in rule.anchors or ():
                    patterns.setdefault(anchor, []).append(index)
            if patterns:
                # A DFA: with a hundred vendor prefixes the default NFA scans 3x slower,
                # the DFA as fast as with twenty (one table lookup per byte).
                automaton = ahocorasick_rs.BytesAhoCorasick(
                    list(patterns), implementation=ahocorasick_rs.Implementation.DFA
                )
                self._passes.append((lower, automaton, [tuple(o) for o in patterns.values()]))
        self.indexed = frozenset(indexed)

    def positions(self, view: View) -> dict[int, list[int] | None]:
        """Rule index -> sorted start offsets of its literals, for indexed rules whose
        literals occur; an indexed rule missing from the result cannot match.

        A rule whose literals are too common in this text maps to None: it
        runs its own ``finditer``.
        """
        found: dict[int, list[int] | None] = {}
        for lower, automaton, owners in self._passes:
            text = view.low if lower else view.data
            for pattern, start, _ in automaton.find_matches_as_indexes(  # type: ignore[attr-defined]
                text, overlapping=True
            ):
                for index in owners[pattern]:
                    starts = found.get(index)
                    if starts is None:
                        found[index] = [start]
                    else:
                        starts.append(start)
        return settle(found, len(view.data))


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
