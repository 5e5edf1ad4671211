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
* the PEM scanner starts only at ``PRIVATE KEY`` or ``PuTTY-User-Key-File``;
* the escape decoders start at ``\\x1b[``, ``\\u00``, ``&``, ``%`` or a
  non-ASCII byte; the block decoders at their anchors (depth 0) or at a
  base64/hex run (deeper) that decodes to text.

One Aho-Corasick pass over the text (and one over its lower-cased twin) and,
at depth, a decode of each run answer that in C. "No" is exact (the scan
would return no hit); "maybe" runs the scan as before. An engine with a rule
that has no literal prefix, or a scanner of its own, gets no probe.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from .rules import Rule

try:
    import ahocorasick_rs
except ImportError:  # pragma: no cover - exercised only without the wheel
    ahocorasick_rs = None  # type: ignore[assignment]

PROBE_MAX = 16 << 10
"""Texts up to this size are probed; bigger ones (a whole chunk of a log) always hold
candidates, and the anchor index already handles them in one pass."""

PEM_MARKERS = (b"PRIVATE KEY", b"PuTTY-User-Key-File")
ESCAPE_STARTS = (b"\x1b[", b"\\u00", b"&", b"%")
"""The first bytes of every escape decoder's anchor (:data:`redactors.decode.ESCAPE_ANCHORS`);
the confusable decoder runs only on non-ASCII text, checked separately."""


class _Literals:
    """Whether any of a set of literals occurs in a text (C speed with the wheel)."""

    def __init__(self, literals: Iterable[bytes]) -> None:
        self.literals = tuple(sorted(set(literals)))
        self._automaton = None
        if ahocorasick_rs is not None and self.literals:
            self._automaton = ahocorasick_rs.BytesAhoCorasick(list(self.literals))

    def any_in(self, text: bytes) -> bool:
        if self._automaton is not None:
            return bool(self._automaton.find_matches_as_indexes(text))
        return any(literal in text for literal in self.literals)


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
    ) -> None:
        self.usable = all(rule.scanner is None and rule.anchors for rule in rules)
        sensitive = {a for r in rules if not r.lower for a in r.anchors or ()}
        lower = {a for r in rules if r.lower for a in r.anchors or ()}
        if pem:
            sensitive.update(PEM_MARKERS)
        self.max_depth = max_depth
        self._sensitive = _Literals(sensitive)
        self._lower = _Literals(lower)
        self._escapes = _Literals(ESCAPE_STARTS)
        self._blocks = _Literals(block_anchors)
        self._runs_decode = runs_decode

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
