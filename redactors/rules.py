"""The shapes every rule shares: a rule record, a text view, a hit.

Rules are data (the troubleshoot and Datadog lesson): an id, a kind for the
token, a literal-first regular expression over bytes, and optionally a small
handler that finds the exact secret span around a match (key-name checks,
quoted values, the last ``@`` of a URL authority). Every pattern starts with a
literal, because CPython's ``re`` only skips ahead quickly to a literal
prefix; case-insensitive rules match the lower-cased view (ASCII lowering
keeps offsets), never ``(?i)``.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from schemas.redaction import RuleSource

SMALL_VIEW = 8192
"""Below this size, a rule first checks that its literal prefix occurs at all (cheap)."""

ALNUM = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")


@dataclass(frozen=True, slots=True)
class Hit:
    """One secret span in a view, with the kind its token gets."""

    start: int
    end: int
    kind: str
    rule: str
    via: str = "rule"
    decoders: tuple[str, ...] = ()
    extra: tuple[bytes, ...] = ()
    """Other forms of the same secret to propagate (e.g. a Basic header's decoded password)."""
    identity: bytes | None = None
    """When several spans are one secret (a PEM body over many lines), the value the token is
    computed from, so every span gets the same token."""


class View:
    """A window of text being scanned, with its lower-cased twin and a 'need more' mark."""

    __slots__ = ("__weakref__", "_low", "data", "final", "hold", "markers", "rescan", "zlib_starts")

    def __init__(self, data: bytes, *, final: bool = True) -> None:
        self.data = data
        self.final = final
        self.hold = len(data)
        self._low: bytes | None = None
        self.markers: frozenset[str] | None = None
        """Set by the accelerator's index: which other scans' literals occur (None: unknown)."""
        self.zlib_starts: list[int] | None = None
        """Set with ``markers``: where a zlib anchor occurs, in order
        (:data:`~redactors.decode.ZLIB_ANCHORS`). They are in most views of base64-heavy logs
        by chance, and finding them again (16 ``find`` calls a view) cost a fifth of a
        server log's pass."""
        self.rescan: tuple[Any, int] | None = None
        """Set by the engine: (decoders, depth), to decode a base64/hex block and rescan it.
        A tuple, not a closure over the view: a view -> closure -> view cycle would keep
        every 1 MiB view alive until the cyclic garbage collector happened to run."""

    def rescan_block(self, start: int, end: int) -> list[Hit]:
        if self.rescan is None:
            return []
        decoders, depth = self.rescan
        found: list[Hit] = decoders.block(self, start, end, depth)
        return found

    @property
    def low(self) -> bytes:
        if self._low is None:
            self._low = self.data.lower()
        return self._low

    def need_more_from(self, pos: int) -> None:
        """Ask the stream to keep text from ``pos`` (from its line's start, if near) for later.

        On a giant line (minified JSON) holding from the line start would hold
        everything; holding from ``pos`` is enough, since the rule anchors there.
        """
        line_start = self.data.rfind(b"\n", max(0, pos - 4096), pos) + 1
        self.hold = min(self.hold, line_start if line_start > 0 or pos < 4096 else pos)

    def left_ok(self, pos: int, chars: frozenset[int] = ALNUM) -> bool:
        return pos == 0 or self.data[pos - 1] not in chars


def runs_past_view(view: View, end: int, anchor: int) -> bool:
    """Whether what a handler read ends at ``end``, the view's end, with more text to come: it
    may run on in the next view, so the text from ``anchor`` is held for it and the handler
    returns (a token cut at a view's edge would be replaced in part, its tail left clear)."""
    if end == len(view.data) and not view.final:
        view.need_more_from(anchor)
        return True
    return False


def line_end_or_hold(view: View, pos: int, anchor: int) -> int | None:
    """Where the line holding ``pos`` ends (the text's end in a member's last view), or None
    when the view stops inside it and more may come: the text from ``anchor`` is then held
    for the next view, which the handler waits for by returning."""
    end = view.data.find(b"\n", pos)
    if end >= 0:
        return end
    if view.final:
        return len(view.data)
    view.need_more_from(anchor)
    return None


BLOCK_MARGIN = 64 << 10
"""How far before a view's end a block read with its header must end for its hits to stand
(see :func:`holds_block`); no stream's ``overlap`` may exceed it."""


def holds_block(view: View, start: int, end: int, limit: int) -> bool:
    """Whether a block whose header is at ``start`` and whose rows run to ``end`` (a printed
    table, a ``COPY``'s rows) must wait for more text, and if so hold it from its header.

    In a view that is not the member's last, the stream writes a round only up to its
    ``overlap`` before the view's end and scans the rest again in the next round, where the
    header is out of sight: rows read there lost their column's name, and the secrets in
    them reached the bundle. A block that runs to within :data:`BLOCK_MARGIN` of the view's
    end holds the text from its header, and the stream widens its next view until the block
    ends well inside one, or until the block is ``limit`` long (rows after that are read no
    more, so the hold always ends before the stream gives up holding).
    """
    if view.final or end + BLOCK_MARGIN < len(view.data):
        return False
    if len(view.data) - start >= limit + BLOCK_MARGIN:
        return False
    view.need_more_from(start)
    return True


def line_ends(data: bytes, start: int, end: int) -> int:
    """How many lines end in ``data[start:end]``: each ``\\n``, and each ``\\r`` not followed
    by one (classic Mac text, a progress bar's redraws), as the engine reads lines
    (``engine._lone_returns_as_newlines``), so the line a report or review names is the
    line the rule saw. A ``\\r`` last in the range is judged by the byte after it, when
    ``data`` holds one."""
    ends = data.count(b"\n", start, end)
    returns = data.count(b"\r", start, end)
    if returns:
        ends += returns - data.count(b"\r\n", start, end + 1)
    return ends


def line_pieces(hit: Hit, data: bytes, start: int) -> list[Hit]:
    """``hit`` (from ``start``) cut at its newlines, so a replacement never removes a line.

    A value that runs over several lines (a YAML block scalar, a learned
    multi-line secret, a key body) becomes one piece per line, each replaced
    by the same token (the identity is the whole value); the newlines, and any
    ``\r`` before them, stay. Pieces that are only white space are left alone.
    """
    end = hit.end
    if data.find(b"\n", start, end) < 0:
        return [
            hit
            if start == hit.start
            else Hit(start, end, hit.kind, hit.rule, hit.via, hit.decoders, hit.extra, hit.identity)
        ]
    identity = hit.identity or data[start:end]
    pieces = []
    cursor = start
    while cursor < end:
        newline = data.find(b"\n", cursor, end)
        stop = end if newline < 0 else newline
        piece_end = stop - 1 if stop > cursor and data[stop - 1] == 0x0D else stop
        text = data[cursor:piece_end]
        lead = len(text) - len(text.lstrip(b" \t"))
        trail = len(text) - len(text.rstrip(b" \t"))
        if piece_end - trail > cursor + lead:
            pieces.append(
                Hit(
                    cursor + lead,
                    piece_end - trail,
                    hit.kind,
                    hit.rule,
                    hit.via,
                    hit.decoders,
                    hit.extra,
                    identity,
                )
            )
        cursor = stop + 1
    return pieces


MatchHandler = Callable[[View, "re.Match[bytes]", "Rule"], Iterable[Hit]]
ViewScanner = Callable[[View], Iterable[Hit]]
StartsFilter = Callable[[View, list[int]], list[int]]


@dataclass(frozen=True)
class Rule:
    """A detection rule. ``examples`` must be redacted (the secret given); ``decoys`` must not."""

    id: str
    kind: str
    category: str
    description: str
    pattern: bytes | None = None
    lower: bool = False
    group: int = 0
    left_boundary: bool = False
    handler: MatchHandler | None = None
    narrow: StartsFilter | None = None
    """Drops starts where the handler is known to find nothing (the ``jwt`` rule: cursors
    already proven harmless), before the pattern is even tried there."""
    scanner: ViewScanner | None = None
    source: RuleSource = "builtin"
    examples: tuple[tuple[str, str], ...] = ()
    decoys: tuple[str, ...] = ()
    flags: int = 0
    """``re`` flags for ``pattern`` (a custom rule's ``ignore_case``)."""

    anchors: tuple[bytes, ...] | None = field(default=None, init=False, compare=False, repr=False)
    """The literals every match starts with (:func:`literal_prefixes`); None: not indexed."""
    required: tuple[bytes, ...] = field(default=(), init=False, compare=False, repr=False)
    """Literals every match holds after its prefix (``value`` in ``name...value``): a text
    without one of them cannot match, however often the prefix occurs in it."""
    newlines: int | None = field(default=None, init=False, compare=False, repr=False)
    """The most line breaks a match can hold (None: no bound): with ``required``, how far
    before an occurrence of the literal a match can begin (:func:`starts_in_windows`)."""

    def __post_init__(self) -> None:
        if self.pattern is not None:
            anchors, required, newlines = pattern_facts(self.pattern, self.flags)
            object.__setattr__(self, "anchors", anchors)
            object.__setattr__(self, "required", required)
            object.__setattr__(self, "newlines", newlines)

    @cached_property
    def regex(self) -> re.Pattern[bytes] | None:
        """``pattern`` compiled, on the rule's first use: a run compiles only the rules whose
        literals its text holds (a one-file ``bundler redact`` few of the catalog's ~190)."""
        return None if self.pattern is None else re.compile(self.pattern, self.flags)

    def hits(self, view: View, starts: list[int] | None = None) -> Iterable[Hit]:
        """The rule's hits in ``view``; ``starts``, when given, are where its literals occur
        (found for all rules in one pass by :class:`~redactors.anchors.AnchorIndex`)."""
        if self.scanner is not None:
            yield from self.scanner(view)
            return
        assert self.regex is not None
        text = view.low if self.lower else view.data
        required, newlines = self.required, self.newlines
        if required and not all(literal in text for literal in required):
            return  # the inner literal nowhere ("value" in a journal export): however often
            # the prefix occurs ("name" on every line), indexed or not, nothing can match
        if starts is not None:  # few starts: each checked for the inner literal on its lines
            if self.narrow is not None:
                starts = self.narrow(view, starts)
            if required and newlines is not None:
                starts = starts_near(text, starts, required, newlines)
            matches: Iterable[re.Match[bytes]] = matches_at(self.regex, text, starts)
        elif len(text) < SMALL_VIEW and self.anchors and not any(a in text for a in self.anchors):
            return  # a short text without the rule's literal cannot match
        elif required and newlines is not None and self.anchors:
            near = starts_in_windows(text, self.anchors, required[0], newlines)
            matches = matches_at(self.regex, text, near)
        else:
            matches = self.regex.finditer(text)
        for match in matches:
            if self.handler is not None:
                yield from self.handler(view, match, self)
                continue
            start, end = match.span(self.group)
            if self.left_boundary and not view.left_ok(match.start()):
                continue
            if end == len(view.data) and not view.final:
                view.need_more_from(start)
                continue
            if end > start:
                yield Hit(start, end, self.kind, self.id)

    def fingerprint(self) -> str:
        pattern = self.pattern.decode("latin-1") if self.pattern else ""
        handler = getattr(self.handler or self.scanner, "__qualname__", "")
        flags = f"|{self.flags}" if self.flags else ""  # built-in rules' prints as they were
        return f"{self.id}|{self.kind}|{pattern}|{int(self.lower)}|{self.group}|{handler}{flags}"


def matches_at(
    regex: re.Pattern[bytes], text: bytes, starts: list[int]
) -> Iterator[re.Match[bytes]]:
    """``regex.finditer(text)`` when every match must begin at one of ``starts`` (sorted).

    ``finditer`` tries each position left to right and resumes after a
    match; positions where none of the rule's literals starts cannot match,
    so trying only the others, and skipping those inside the previous match,
    gives the same matches. ``match(text, pos)`` sees the text before
    ``pos``, so look-behinds and ``\\b`` behave as in ``finditer``.
    """
    match = regex.match
    resume = 0
    for start in starts:
        if start < resume:
            continue
        found = match(text, start)
        if found is not None:
            resume = max(found.end(), start + 1)
            yield found


PatternFacts = tuple[tuple[bytes, ...] | None, tuple[bytes, ...], int | None]
"""What a pattern says about its literals: a rule's ``anchors``, ``required`` and ``newlines``."""


def pattern_facts(pattern: bytes, flags: int = 0) -> PatternFacts:
    """A pattern's :data:`PatternFacts`, as :func:`read_pattern_facts` gives them.

    Reading them parses the pattern, ~45 ms for the built-in catalog on every start-up, a
    tenth of a one-file ``bundler redact``; the catalog's are read once instead, when it
    changes, into ``redactors/_pattern_facts.py`` (``python -m redactors.catalog.facts``;
    ``tests/redact/test_pattern_facts.py`` fails until it is current), and any other
    pattern (a custom rule, an edited one) is read here.
    """
    known = _known_facts().get(pattern_facts_key(pattern, flags))
    return known if known is not None else read_pattern_facts(pattern, flags)


def read_pattern_facts(pattern: bytes, flags: int = 0) -> PatternFacts:
    """A pattern's facts read from its parse tree: its literal prefixes, the inner literals
    every match holds (less those inside every prefix, which the index finds with it) and
    the most line breaks a match holds."""
    anchors = _prefixes_of(pattern, flags)
    required = tuple(
        r for r in _required_of(pattern, flags) if not (anchors and all(r in a for a in anchors))
    )
    return anchors, required, _newlines_of(pattern, flags)


def pattern_facts_key(pattern: bytes, flags: int) -> str:
    """The table's key for a pattern: a digest, so the table does not spell the catalog out
    a second time."""
    return hashlib.blake2b(b"%d:%s" % (flags, pattern), digest_size=12).hexdigest()


@lru_cache(maxsize=1)
def _known_facts() -> dict[str, PatternFacts]:
    try:
        from ._pattern_facts import FACTS
    except ImportError:  # pragma: no cover - a tree without the generated table: read all
        return {}
    return FACTS


@lru_cache(maxsize=1024)
def _parse_tree(pattern: bytes, flags: int) -> tuple[list[tuple[object, object]], Any, int] | None:
    """The top-level items of a pattern's parse tree, ``re``'s opcode constants and the
    pattern's flags (``flags`` with its inline ones), or None when they cannot be had
    (CPython internals moved, or a pattern ``re`` alone accepts).

    Parsed once per pattern for the three readings below (prefixes, inner literals, line
    breaks), and only for a pattern :func:`pattern_facts` finds no facts of in its table.
    """
    try:
        from re import _constants as constants  # type: ignore[attr-defined]  # private: no stubs
        from re import _parser as parser  # type: ignore[attr-defined]
    except ImportError:  # pragma: no cover - CPython internals moved
        return None
    try:
        tree = parser.parse(pattern.decode("latin-1"), flags & ~re.UNICODE)
    except Exception:
        return None
    return list(tree), constants, int(tree.state.flags)


def literal_prefixes(regex: re.Pattern[bytes]) -> tuple[bytes, ...] | None:
    """The literal(s) every match starts with, or None when there is no such literal.

    Read from the compiled pattern's parse tree, so a rule's prefilter can never
    disagree with its regex. The literals run on through groups, alternations and
    small character classes while those spell out every string they can match:
    ``x(?:ox[abposr]-|app-)`` gives ``xoxa-`` ... ``xapp-``, not ``x``. A one-byte
    literal occurs in almost every text, so a rule anchored on it was tried
    everywhere and made every decoded cursor look like it might hold a secret.
    """
    return _prefixes_of(regex.pattern, regex.flags)


def _prefixes_of(pattern: bytes, flags: int) -> tuple[bytes, ...] | None:
    parsed = _parse_tree(pattern, flags)
    if parsed is None or parsed[2] & re.IGNORECASE:
        return None
    tree, constants, _ = parsed
    found = _sequence(tree, constants)
    if found is None or not all(found[0]):
        return None
    return tuple(dict.fromkeys(found[0]))


def starts_near(
    text: bytes, starts: list[int], required: tuple[bytes, ...], newlines: int
) -> list[int]:
    """The starts after which every required literal occurs before a match must end.

    A match holds at most ``newlines`` line breaks, so it ends before the next
    ``newlines + 1``-th one; where a required literal is missing from there on, no
    match begins and ``regex.match`` is not tried (the cost follows the starts,
    not the text: one search of a few lines each).
    """
    kept = []
    find = text.find
    for start in starts:
        end = start
        for _ in range(newlines + 1):
            end = find(b"\n", end) + 1
            if not end:
                end = len(text)
                break
        if all(find(literal, start, end) >= 0 for literal in required):
            kept.append(start)
    return kept


def starts_in_windows(
    text: bytes, anchors: tuple[bytes, ...], required: bytes, newlines: int
) -> list[int]:
    """Where a match can begin when the prefix is too common to index: every occurrence of
    ``anchors`` at most ``newlines`` line breaks before an occurrence of ``required``,
    which every match holds after its prefix. (With the index's starts, :func:`starts_near`
    checks each start instead.)

    ``name`` is on every line of a Kubernetes listing and ``value`` on few: the pattern is
    tried near each ``value`` only. Every match begins at one of the starts returned, so
    :func:`matches_at` over them finds what ``finditer`` finds.
    """
    windows: list[tuple[int, int]] = []  # [first possible start, last possible start]
    find, rfind = text.find, text.rfind
    at = find(required)
    while at >= 0:
        low = at
        for _ in range(newlines + 1):
            low = rfind(b"\n", 0, low)
            if low < 0:
                break
        low += 1  # the start of the line ``newlines`` above the literal's (or of the text)
        if windows and low <= windows[-1][1] + 1:
            windows[-1] = (windows[-1][0], at)
        else:
            windows.append((low, at))
        at = find(required, at + 1)
    found = set()
    for low, high in windows:
        for anchor in anchors:
            pos = find(anchor, low, high + len(anchor))
            while pos >= 0:
                found.add(pos)
                pos = find(anchor, pos + 1, high + len(anchor))
    return sorted(found)


def max_newlines(regex: re.Pattern[bytes]) -> int | None:
    """The most ``\\n`` bytes a match of ``regex`` can contain, or None when unbounded or
    unknown (read from the parse tree; a class, ``.`` or flag that might match a newline
    counts as one per repetition; ``.`` only with DOTALL)."""
    return _newlines_of(regex.pattern, regex.flags)


def _newlines_of(pattern: bytes, flags: int) -> int | None:
    parsed = _parse_tree(pattern, flags)
    if parsed is None:
        return None
    tree, constants, all_flags = parsed
    return _newlines(tree, constants, bool(all_flags & re.DOTALL))


def _newlines(items: list[tuple[object, object]], c: Any, dotall: bool) -> int | None:
    total = 0
    for op, av in items:
        count = _element_newlines(op, av, c, dotall)
        if count is None:
            return None
        total += count
    return total


def _element_newlines(op: object, av: Any, c: Any, dotall: bool) -> int | None:
    if op is c.LITERAL:
        return 1 if av == 10 else 0
    if op is c.NOT_LITERAL:
        return 0 if av == 10 else 1
    if op is c.ANY:
        return 1 if dotall else 0
    if op is c.IN:
        return 1 if _class_has_newline(av, c) else 0
    if op in (c.AT, c.ASSERT, c.ASSERT_NOT):
        return 0  # zero width: what a look-around sees is not in the match
    if op in (c.MAX_REPEAT, c.MIN_REPEAT, getattr(c, "POSSESSIVE_REPEAT", None)):
        _low, high, inner = av
        count = _newlines(list(inner), c, dotall)
        if count == 0:
            return 0
        if count is None or high is c.MAXREPEAT:
            return None
        return int(count * high)
    if op is c.SUBPATTERN:
        return None if av[1] or av[2] else _newlines(list(av[3]), c, dotall)
    if op is getattr(c, "ATOMIC_GROUP", None):
        return _newlines(list(av), c, dotall)
    if op is c.BRANCH:
        counts = [_newlines(list(branch), c, dotall) for branch in av[1]]
        return None if any(n is None for n in counts) else max(counts)  # type: ignore[type-var]
    return None  # back-references and the rest: not bounded here


def _class_has_newline(members: Any, c: Any) -> bool:
    negate = False
    found = False
    for op, av in members:
        if op is c.NEGATE:
            negate = True
        elif op is c.LITERAL:
            found = found or av == 10
        elif op is c.RANGE:
            found = found or av[0] <= 10 <= av[1]
        else:
            return True  # a category (\\s, \\w, ...): assume it may
    return found != negate


REQUIRED_MIN = 4
"""Interior literals shorter than this are not worth a search of the text."""


def required_literals(regex: re.Pattern[bytes]) -> tuple[bytes, ...]:
    """Literal runs that every match holds, past its first element (at most two, longest first).

    Read, like :func:`literal_prefixes`, from the parse tree: the runs of plain
    literals at the top level of the pattern, which no match can skip. The
    prefix is left out (the anchor index finds it).
    """
    return _required_of(regex.pattern, regex.flags)


def _required_of(pattern: bytes, flags: int) -> tuple[bytes, ...]:
    parsed = _parse_tree(pattern, flags)
    if parsed is None or parsed[2] & re.IGNORECASE:
        return ()
    tree, constants, _ = parsed
    runs: list[bytes] = []
    run = bytearray()
    leading = True  # the literal prefix itself
    for op, av in tree:
        if op is constants.LITERAL:
            if not leading:
                run.append(av)  # type: ignore[arg-type]  # a LITERAL's argument is its byte
            continue
        leading = False
        if len(run) >= REQUIRED_MIN:
            runs.append(bytes(run))
        run = bytearray()
    if len(run) >= REQUIRED_MIN:
        runs.append(bytes(run))
    return tuple(sorted(runs, key=len, reverse=True)[:2])


PREFIXES_MAX = 64
"""At most this many literals per rule (a class or alternation past it ends the prefix)."""
CLASS_MAX = 8
"""A character class of at most this many single bytes is spelled out (``[pousr]``)."""


def _sequence(items: list[tuple[object, object]], c: object) -> tuple[list[bytes], bool] | None:
    """Strings every match of ``items`` starts with, and whether they are all it can match
    (then what follows may be appended); None when nothing literal leads."""
    prefixes = [b""]
    for op, av in items:
        step = _element(op, av, c)
        combined = [] if step is None else [p + s for p in prefixes for s in step[0]]
        if step is None or len(combined) > PREFIXES_MAX:
            return None if prefixes == [b""] else (prefixes, False)
        prefixes = combined
        if not step[1]:
            return prefixes, False
    return prefixes, True


def _element(op: object, av: object, c: object) -> tuple[list[bytes], bool] | None:
    if op is c.LITERAL:  # type: ignore[attr-defined]
        return [bytes([av])], True  # type: ignore[list-item]
    if op is c.IN:  # type: ignore[attr-defined]
        members = list(av)  # type: ignore[call-overload]
        if len(members) > CLASS_MAX or any(m[0] is not c.LITERAL for m in members):  # type: ignore[attr-defined]
            return None
        return [bytes([m[1]]) for m in members], True
    if op is c.SUBPATTERN:  # type: ignore[attr-defined]
        if av[1] or av[2]:  # type: ignore[index]  # (?i:...) and other local flags
            return None
        return _sequence(list(av[3]), c)  # type: ignore[index]
    if op is c.BRANCH:  # type: ignore[attr-defined]
        branches = [_sequence(list(b), c) for b in av[1]]  # type: ignore[index]
        if any(b is None for b in branches):
            return None
        strings = [s for b in branches for s in b[0]]  # type: ignore[index]
        return strings, all(b[1] for b in branches)  # type: ignore[index]
    return None
