"""The optional accelerator: every literal-first rule's literals in one Hyperscan database.

``pip install bundler[fast]`` brings the ``hyperscan`` wheel (the library is
inside it). The engine then finds where each rule could match with one
Hyperscan pass over the text instead of the Aho-Corasick pass over its lower-cased
twin: case-insensitive rules' literals are compiled caseless (ASCII only, as
``bytes.lower`` is), the others as written, so neither the twin nor a check of each
case-sensitive place is needed. The PEM markers and the decoders' anchors are in the
same database, as in the Aho-Corasick pass, so a text without them skips those scans.

What the accelerator changes is only *how candidates are found*: each rule
still tries ``re.match`` at exactly the positions the Aho-Corasick index gives
(:class:`~redactors.anchors.AnchorIndex` computes the same dictionary), so the
output is byte-identical with and without it; ``tests/redact/test_accel.py``
checks that on the whole catalog and the peer suite.

``BUNDLER_REDACT_ACCEL``: ``auto`` (default: use Hyperscan when installed) or
``off`` (the pure-Python engine).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from typing import Any

from .anchors import MARKERS, AnchorIndex, settle
from .decode import ZLIB_ANCHOR_LENGTH
from .memory import release_free_memory
from .rules import Rule, View

ENV = "BUNDLER_REDACT_ACCEL"

hyperscan: Any  # the module, or None without the optional extra
try:
    import hyperscan as _hyperscan

    hyperscan = _hyperscan
except ImportError:  # the optional extra is not installed: the pure-Python engine is used
    hyperscan = None


def available() -> bool:
    """Whether the Hyperscan wheel is installed and loads."""
    return hyperscan is not None


def enabled() -> bool:
    """Whether engines built now use the accelerator (installed, and not switched off)."""
    return available() and os.environ.get(ENV, "auto").strip().lower() not in ("off", "0", "no")


def anchor_index(rules: Sequence[Rule]) -> AnchorIndex:
    """The candidate index for ``rules``: Hyperscan's when enabled, else Aho-Corasick's.

    One per rule list and engine kind in a process: ``bundler redact`` builds a redactor
    per pass and per in-process worker, each with the same catalog, and building the index
    (its automaton, the accelerator's pattern table) was a tenth of a small file's run.
    The key is the rules' identities, kept alive with the index: equal-looking rules built
    apart (a run's keywords) get an index of their own."""
    accelerated = enabled()
    key = (accelerated, tuple(id(rule) for rule in rules))
    cached = _INDEXES.get(key)
    if cached is not None:
        return cached[1]
    index = HyperscanIndex(rules) if accelerated else AnchorIndex(rules)
    if len(_INDEXES) >= _INDEXES_MAX:
        _INDEXES.pop(next(iter(_INDEXES)))
    _INDEXES[key] = (tuple(rules), index)
    return index


_INDEXES: dict[tuple[bool, tuple[int, ...]], tuple[tuple[Rule, ...], AnchorIndex]] = {}
_INDEXES_MAX = 8


SMALL_TEXT = 64 << 10
"""Texts shorter than this are indexed by Aho-Corasick (no database compiled for them)."""


def _escaped(literal: bytes) -> bytes:
    return b"".join(b"\\x%02x" % byte for byte in literal)


class HyperscanIndex(AnchorIndex):
    """:class:`~redactors.anchors.AnchorIndex` computed with one Hyperscan scan.

    Compiling the database costs tens of milliseconds, more than scanning a
    small file, so a text under :data:`SMALL_TEXT` is indexed by the
    Aho-Corasick pass (the same dictionary and markers) and the database is compiled
    when the first big text comes, once per process for a given rule set.
    """

    def __init__(self, rules: Sequence[Rule]) -> None:
        if hyperscan is None:
            raise RuntimeError("hyperscan is not installed")
        super().__init__(rules)
        expressions: list[bytes] = []
        flags: list[int] = []
        self._owners: list[tuple[int, ...]] = []
        self._lengths: list[int] = []
        for lower in (False, True):
            patterns: dict[bytes, list[int]] = {}
            for index, rule in enumerate(rules):
                if index in self.indexed and rule.lower == lower:
                    for anchor in rule.anchors or ():
                        patterns.setdefault(anchor, []).append(index)
            for literal, owners in patterns.items():
                if lower and literal != literal.lower():
                    continue  # never in the lower-cased text: Aho-Corasick never finds it either
                expressions.append(_escaped(literal))
                flags.append(hyperscan.HS_FLAG_CASELESS if lower else 0)
                self._owners.append(tuple(owners))
                self._lengths.append(len(literal))
        self._first_marker = len(expressions)
        self._marker_names: list[str] = []
        for name, literals in MARKERS.items():
            for literal in literals:
                expressions.append(_escaped(literal))
                # every place of a zlib anchor is wanted (View.zlib_starts), of the others one
                flags.append(0 if name == "zlib" else hyperscan.HS_FLAG_SINGLEMATCH)
                self._marker_names.append(name)
        self._key = (tuple(expressions), tuple(flags))
        self._db: Any = None
        self._refused = False
        self._local = threading.local()
        """One scratch space per thread: doctor's collectors redact from several at once."""

    def _database(self) -> tuple[Any, Any]:
        """The compiled database and this thread's scratch space for it.

        Compiled once per process, on first use. The compiler's working memory (~20 MB
        for the catalog) is freed when it returns, into glibc's heap, where Python's own
        objects (pymalloc maps arenas apart) never reuse it: it stayed resident through a
        1,000-host collection until the end-of-collection trim, 6-9 MiB of doctor's peak.
        It goes back to the system right away instead.
        """
        if self._db is None:
            with _COMPILING:
                if self._key not in _DATABASES:
                    expressions, flags = self._key
                    database = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
                    database.compile(
                        expressions=list(expressions),
                        ids=list(range(len(expressions))),
                        elements=len(expressions),
                        flags=list(flags),
                    )
                    _DATABASES[self._key] = database
                    release_free_memory()  # the compiler's scratch: see _database's docstring
                self._db = _DATABASES[self._key]
        scratch = getattr(self._local, "scratch", None)
        if scratch is None:
            scratch = self._local.scratch = hyperscan.Scratch(self._db)
        return self._db, scratch

    def positions(self, view: View) -> dict[int, list[int] | None]:
        if len(view.data) < SMALL_TEXT or self._refused:
            return super().positions(view)
        try:
            database, scratch = self._database()
        except hyperscan.error:  # a database the library refuses: the same dictionary, by AC
            self._refused = True
            return super().positions(view)
        # The callback runs once per literal occurrence (~190,000 over the realistic corpus,
        # a tenth of pass one): it only records where each pattern ended; the starts are
        # worked out per pattern afterwards, in comprehensions.
        ends: list[list[int]] = [[] for _ in self._lengths]
        ends.extend([] for _ in self._marker_names)

        def on_match(pattern: int, _start: int, end: int, _flags: int, _context: Any) -> None:
            ends[pattern].append(end)

        database.scan(view.data, match_event_handler=on_match, scratch=scratch)
        first_marker, names = self._first_marker, self._marker_names
        view.markers = frozenset(
            names[pattern - first_marker]
            for pattern in range(first_marker, len(ends))
            if ends[pattern]
        )
        view.zlib_starts = sorted(
            end - ZLIB_ANCHOR_LENGTH
            for pattern in range(first_marker, len(ends))
            if names[pattern - first_marker] == "zlib"
            for end in ends[pattern]
        )
        found: dict[int, list[int] | None] = {}
        for pattern, owners in enumerate(self._owners):
            pattern_ends = ends[pattern]
            if not pattern_ends:
                continue
            length = self._lengths[pattern]
            starts = [end - length for end in pattern_ends]
            for index in owners:
                known = found.get(index)
                if known is None:
                    found[index] = list(starts) if len(owners) > 1 else starts
                else:
                    known.extend(starts)
        return settle(found, len(view.data))


_COMPILING = threading.Lock()
_DATABASES: dict[tuple[tuple[bytes, ...], tuple[int, ...]], Any] = {}
"""Compiled databases by their patterns: every engine of a process with the same rules (the
coordinator's, a worker's, a scoped one) shares one."""
