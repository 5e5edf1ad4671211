"""The detection engine: run every rule over a view, decode and rescan, resolve overlaps.

Rules run one by one (in CPython ``re`` one literal-first pass per rule is
faster than any alternation of them), each only where its literal occurs:
one Aho-Corasick pass finds those places for all of them (:mod:`.anchors`).
A value that is wholly a placeholder (``ghp_xxxx...``, ``AKIAIOSFODNN7EXAMPLE``,
``<your-token>``) is dropped here, whichever rule found it.
The result is a sorted list of non-overlapping hits; overlapping hits are
merged into one span, so a URL password that is also found by the decoder is
replaced once.
"""

from __future__ import annotations

import inspect
import re
from bisect import bisect_right
from collections.abc import Iterable, Sequence

from .accel import anchor_index
from .anchors import AnchorIndex
from .decode import BLOCK_ANCHORS, ZLIB_ANCHORS, Decoders
from .keys import is_placeholder
from .pem import scan_pem
from .prefilter import PROBE_MAX, Probe
from .rules import Hit, Rule, View
from .tokens import token_spans


class Allowlist:
    """Values that are never redacted (custom rule files: known test keys, public ids)."""

    def __init__(self, values: Iterable[bytes] = (), patterns: Iterable[object] = ()) -> None:
        self.values = frozenset(values)
        self.patterns = tuple(patterns)

    def allows(self, value: bytes) -> bool:
        if value in self.values:
            return True
        return any(p.fullmatch(value) for p in self.patterns)  # type: ignore[attr-defined]

    def __bool__(self) -> bool:
        return bool(self.values or self.patterns)


class Engine:
    """Scans bytes for secrets with a fixed rule list."""

    def __init__(
        self,
        rules: Sequence[Rule],
        *,
        max_depth: int = 3,
        allowlist: Allowlist | None = None,
        pem: bool = True,
    ) -> None:
        self.rules = tuple(rules)
        self.anchors = anchor_index(self.rules)
        self.allowlist = allowlist or Allowlist()
        self.decoders = Decoders(self.scan, max_depth=max_depth, cache=_stateless(self.rules))
        self.pem = pem
        probe = Probe(
            self.rules,
            pem=pem,
            max_depth=max_depth,
            block_anchors=(*BLOCK_ANCHORS, *ZLIB_ANCHORS),
            runs_decode=self.decoders.runs_decode,
            runs_decode_many=self.decoders.runs_decode_many,
        )
        self.probe = probe if probe.usable else None
        self.decoders.prover = self.probe

    @property
    def anchors(self) -> AnchorIndex:
        """Where the indexed rules' literals occur (replaceable: a test compares an engine
        without the index)."""
        return self._anchors

    @anchors.setter
    def anchors(self, index: AnchorIndex) -> None:
        self._anchors = index
        self._unindexed = tuple(i for i in range(len(self.rules)) if i not in index.indexed)
        """Rules that scan every view themselves; the indexed ones run only where the index
        found their literals, so a scan visits those and these, in catalog order, instead of
        asking each of the catalog's rules in turn (~13 us a view, thousands of small views
        a bundle: decoded blocks, member names)."""

    def scan(self, view: View, depth: int = 0) -> list[Hit]:
        """Non-overlapping hits in ``view``, sorted by position."""
        if b"\r" in view.data and (lined := _lone_returns_as_newlines(view)) is not None:
            found = self.scan(lined, depth)
            view.hold = lined.hold
            return found
        probe = self.probe
        if (
            probe is not None
            and view.final
            and len(view.data) <= PROBE_MAX
            and not probe.may_hit(view.data, depth)
        ):
            return []  # nothing any rule, the PEM scanner or a decoder could start from
        hits: list[Hit] = []
        if depth < self.decoders.max_depth:
            view.rescan = (self.decoders, depth)
        starts = self.anchors.positions(view)  # an indexed rule missing here cannot match
        rules = self.rules
        for index in sorted((*starts, *self._unindexed)) if starts else self._unindexed:
            if index in starts:
                hits.extend(rules[index].hits(view, starts[index]))
            else:
                hits.extend(rules[index].hits(view))
        if self.pem and (view.markers is None or "pem" in view.markers):
            hits.extend(scan_pem(view))
        hits.extend(self.decoders.hits(view, depth))
        if not hits:
            return hits
        data = view.data
        hits = [h for h in hits if h.via != "rule" or not is_placeholder(data[h.start : h.end])]
        return resolve(hits, data, self.allowlist)


_LONE_RETURN = re.compile(rb"\r(?!\n)")


def _lone_returns_as_newlines(view: View) -> View | None:
    """``view`` with every carriage return not before a line feed read as a line feed (None
    when it has none), so the rules see the lines it holds.

    Text whose lines end in a lone ``\r`` (classic Mac files, a progress bar's redraws,
    some device consoles) was one line to every rule: a value that runs to its line's end
    (``password = correct horse battery``) stopped at its first word, and a directive that
    must open its line (``requirepass a b c``) was never found, in redact and in review
    alike. The copy has the same length, so every hit's offsets hold for the text as it is,
    which is what the caller replaces: the line endings themselves are never rewritten.
    """
    data = view.data
    if data.count(b"\r") == data.count(b"\r\n"):
        return None
    return View(_LONE_RETURN.sub(b"\n", data), final=view.final)


def _stateless(rules: Sequence[Rule]) -> bool:
    """Whether a scan's result depends on the text alone (so decoded blocks may be cached).

    A scanner of its own or a handler bound to an object (the network
    pseudonymizer learns names as it matches) may keep state; plain functions
    and patterns do not.
    """
    return all(rule.scanner is None and not inspect.ismethod(rule.handler) for rule in rules)


def resolve(hits: list[Hit], data: bytes, allowlist: Allowlist | None = None) -> list[Hit]:
    """Merge overlapping hits, skip tokens already in the text and allowlisted values."""
    existing = token_spans(data)
    ends = [end for _, end in existing]  # tokens are in order and apart: ends are sorted
    hits.sort(key=lambda h: (h.start, -h.end))
    merged: list[Hit] = []
    for hit in hits:
        if hit.end <= hit.start:
            continue
        if allowlist and allowlist.allows(data[hit.start : hit.end]):
            continue
        if existing:
            pieces = _outside_tokens(hit, existing, ends, data)
            if not pieces:
                continue
            if len(pieces) > 1 or pieces[0] != hit:
                merged.extend(pieces)
                continue
        if merged and hit.start < merged[-1].end:
            last = merged[-1]
            if hit.end > last.end:
                merged[-1] = Hit(
                    last.start,
                    hit.end,
                    last.kind,
                    last.rule,
                    last.via,
                    last.decoders or hit.decoders,
                    last.extra + hit.extra,
                    None,
                )
            elif hit.extra:
                merged[-1] = Hit(
                    last.start,
                    last.end,
                    last.kind,
                    last.rule,
                    last.via,
                    last.decoders,
                    last.extra + hit.extra,
                    last.identity,
                )
            continue
        merged.append(hit)
    if existing:
        merged.sort(key=lambda h: (h.start, -h.end))
        return _drop_overlaps(merged)
    return merged


def _drop_overlaps(hits: list[Hit]) -> list[Hit]:
    out: list[Hit] = []
    for hit in hits:
        if out and hit.start < out[-1].end:
            continue
        out.append(hit)
    return out


def _outside_tokens(
    hit: Hit, tokens: list[tuple[int, int]], ends: list[int], data: bytes
) -> list[Hit]:
    """The parts of ``hit`` that are not inside an existing token (idempotency).

    Only the tokens that overlap ``hit`` are visited, found by bisecting their ends: a
    scan of every token for every hit made review of a heavily redacted member quadratic
    (97 s for 21 MB with a token every ~100 bytes).
    """
    pieces = [(hit.start, hit.end)]
    for index in range(bisect_right(ends, hit.start), len(tokens)):
        t_start, t_end = tokens[index]
        if t_start >= hit.end:
            break
        next_pieces = []
        for a, b in pieces:
            if t_end <= a or t_start >= b:
                next_pieces.append((a, b))
                continue
            if a < t_start:
                next_pieces.append((a, t_start))
            if t_end < b:
                next_pieces.append((t_end, b))
        pieces = next_pieces
    if pieces != [(hit.start, hit.end)]:
        pieces = [_without_blanks(data, a, b) for a, b in pieces]
    kept = [(a, b) for a, b in pieces if data[a:b].strip(b" \t\r\n\"',;:@/") and b - a >= 2]
    if kept == [(hit.start, hit.end)]:
        return [hit]
    return [Hit(a, b, hit.kind, hit.rule, hit.via, hit.decoders, hit.extra) for a, b in kept]


def _without_blanks(data: bytes, start: int, end: int) -> tuple[int, int]:
    """``data[start:end]`` less the blanks at its ends: the clear tail of ``[REDACTED:...]
    horse battery`` is replaced as ``horse battery``, keeping the blank that parts them."""
    while start < end and data[start] in b" \t":
        start += 1
    while end > start and data[end - 1] in b" \t":
        end -= 1
    return start, end
