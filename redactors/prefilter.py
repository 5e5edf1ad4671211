"""Deciding in C that a small text holds nothing, before the engine looks at it rule by rule.

Most of what the decoders hand back to the engine is harmless: a base64
pagination cursor (``eyJvZmZzZXQiOiAxMDB9``) decodes to ``{"offset": 100, ...}``,
a hex id to random bytes. Scanning such a text the full way (every rule, the
PEM scanner, every decoder, a :class:`~redactors.rules.View` and generators
per step) costs a few hundred microseconds; a support bundle has thousands
of cursors per MB. :class:`Probe` answers the only question that matters
for them, "could the scan find anything at all?", from what every part of the
scan needs before it can report a hit:

* every rule matches only where one of its literal prefixes occurs
  (:func:`~redactors.rules.literal_prefixes`, in the lower-cased text for
  case-insensitive rules);
* the PEM scanner starts only at ``PRIVATE KEY``, ``PuTTY-User-Key-File`` or
  ``OpenVPN Static key``;
* the escape decoders start at ``\\x1b[``, ``\\u00``, ``&``, ``%`` or a
  non-ASCII byte; the block decoders at their anchors (depth 0) or at a
  base64/hex run (deeper) that decodes to text.

One Aho-Corasick pass over the text (and one over its lower-cased twin) and,
at depth, a decode of each run answer that in C. "No" is exact (the scan
would return no hit); "maybe" runs the scan as before. An engine with a rule
that has no literal prefix, or a scanner of its own, gets no probe.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import lru_cache

from .rules import Rule

try:
    import ahocorasick_rs
except ImportError:  # pragma: no cover - exercised only without the wheel
    ahocorasick_rs = None  # type: ignore[assignment]

PROBE_MAX = 16 << 10
"""Texts up to this size are probed; bigger ones (a whole chunk of a log) always hold
candidates, and the anchor index already handles them in one pass."""

PEM_MARKERS = (b"PRIVATE KEY", b"PuTTY-User-Key-File", b"OpenVPN Static key")
ESCAPE_STARTS = (b"\x1b[", b"\\u00", b"&", b"%")
"""The first bytes of every escape decoder's anchor (:data:`redactors.decode.ESCAPE_ANCHORS`);
the confusable decoder runs only on non-ASCII text, checked separately."""


def places(text: bytes, literal: bytes) -> Iterator[int]:
    """Where ``literal`` occurs in ``text``, overlapping ones too (``bytes.find`` in C)."""
    at = text.find(literal)
    while at >= 0:
        yield at
        at = text.find(literal, at + 1)


class _Literals:
    """Whether any of a set of literals occurs in a text (C speed with the wheel)."""

    def __init__(self, literals: Iterable[bytes]) -> None:
        self.literals = tuple(sorted(set(literals)))
        self._automaton = None
        if ahocorasick_rs is not None and self.literals:
            # A DFA: the default NFA follows failure links, and with the catalog's hundred
            # and more literals scanned decoded cursors at half the speed.
            self._automaton = ahocorasick_rs.BytesAhoCorasick(
                list(self.literals), implementation=ahocorasick_rs.Implementation.DFA
            )

    def any_in(self, text: bytes) -> bool:
        if self._automaton is not None:
            return bool(self._automaton.find_matches_as_indexes(text))
        return any(literal in text for literal in self.literals)

    def spans(self, text: bytes) -> list[tuple[int, int]]:
        """Where the literals occur (one non-overlapping, leftmost-first pass with the wheel).

        Every occurrence of a literal either is reported or overlaps one that is:
        marking each text a span touches marks every text that holds a literal.
        """
        if self._automaton is None:  # no wheel (or no literals): every occurrence, found one by one
            return [
                (at, at + len(literal)) for literal in self.literals for at in places(text, literal)
            ]
        return [(start, end) for _, start, end in self._automaton.find_matches_as_indexes(text)]


@lru_cache(maxsize=32)
def _literals(literals: frozenset[bytes]) -> _Literals:
    """One automaton per literal set in a process: ``bundler redact`` builds a redactor per
    pass and per in-process worker, each with the same catalog (~3 ms a redactor)."""
    return _Literals(literals)


class Probe:
    """Exact "nothing to find" test for a small, final text; see the module docstring.

    ``runs_decode`` is the decoders' test of whether a block at some depth
    decodes to text (:meth:`redactors.decode.Decoders.runs_decode`).
    """

    def __init__(
        self,
        rules: Sequence[Rule],
        *,
        pem: bool,
        max_depth: int,
        block_anchors: Iterable[bytes],
        runs_decode: object,
        runs_decode_many: Callable[[Sequence[bytes]], list[bool]] | None = None,
    ) -> None:
        self.usable = all(rule.scanner is None and rule.anchors for rule in rules)
        sensitive = {a for r in rules if not r.lower for a in r.anchors or ()}
        lower = {a for r in rules if r.lower for a in r.anchors or ()}
        if pem:
            sensitive.update(PEM_MARKERS)
        self.max_depth = max_depth
        self._sensitive = _literals(frozenset(sensitive))
        self._lower = _literals(frozenset(lower))
        self._escapes = _literals(frozenset(ESCAPE_STARTS))
        self._blocks = _literals(frozenset(block_anchors))
        self._runs_decode = runs_decode
        self._runs_decode_many = runs_decode_many
        self.batched = ahocorasick_rs is not None and runs_decode_many is not None
        """Whether :meth:`may_hit_many` answers in a few passes (else it asks text by text)."""

    def may_hit(self, data: bytes, depth: int) -> bool:
        """False only when scanning ``data`` (final) at ``depth`` cannot give a hit."""
        if self._sensitive.any_in(data) or self._lower.any_in(data.lower()):
            return True
        if depth >= self.max_depth:
            return False
        if not data.isascii() or self._escapes.any_in(data):
            return True
        if depth == 0:
            return self._blocks.any_in(data)
        return self._runs_decode(data)  # type: ignore[operator,no-any-return]

    def may_hit_many(self, datas: Sequence[bytes], depth: int) -> list[bool]:
        """``[self.may_hit(d, depth) for d in datas]``, in one pass per test over all of them.

        The texts are joined by newlines: a literal, escape or non-ASCII byte is
        charged to every text its span touches (a span across a newline makes
        both texts "maybe", never "no"), and a base64 or hex run never crosses
        a newline. Thousands of decoded cursors then cost a few C passes and
        the runs inside them, instead of five calls each.
        """
        if not self.batched or len(datas) < 2:
            return [self.may_hit(data, depth) for data in datas]
        joined = b"\n".join(datas)
        starts = []
        pos = 0
        for data in datas:
            starts.append(pos)
            pos += len(data) + 1
        maybe = [False] * len(datas)

        def mark(spans: Iterable[tuple[int, int]]) -> None:
            for start, end in spans:
                first = bisect_right(starts, start) - 1
                last = bisect_right(starts, max(start, end - 1)) - 1
                for index in range(first, last + 1):
                    maybe[index] = True

        mark(self._sensitive.spans(joined))
        mark(self._lower.spans(joined.lower()))
        if depth >= self.max_depth:
            return maybe
        if not joined.isascii():
            mark(m.span() for m in _NON_ASCII.finditer(joined))
        mark(self._escapes.spans(joined))
        if depth == 0:
            mark(self._blocks.spans(joined))
            return maybe
        rest = [i for i, hit in enumerate(maybe) if not hit]
        assert self._runs_decode_many is not None
        for index, decodes in zip(
            rest, self._runs_decode_many([datas[i] for i in rest]), strict=True
        ):
            maybe[index] = decodes
        return maybe


_NON_ASCII = re.compile(rb"[\x80-\xff]+")
