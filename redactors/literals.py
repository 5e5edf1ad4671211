"""Literal propagation: a value redacted anywhere is removed from every member, in every form.

A password that a rule found in ``app.conf`` may sit elsewhere in the bundle
with nothing around it to give it away (a stack trace, an access log with it
percent-encoded, a base64 blob). Every redacted value is learned here with its
encoded forms (percent, ``+``-for-space, JSON-escaped once and twice, HTML,
base64 in both alphabets, hex); the finalize pass replaces all of them.

Matching many literals at once needs a multi-pattern matcher: CPython ``re``
alternations of hundreds of literals run below 1 MB/s (redaction.md §3.4), an
Aho-Corasick automaton runs one pass whatever the count. Short values (< 8 bytes)
match only between non-alphanumeric bytes so ``guest`` does not eat
``guestbook``; values under 4 bytes are not propagated at all (too many false
matches) and are reported as such by the tests' documented limits.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Iterable, Iterator
from functools import lru_cache
from itertools import islice
from typing import Any

from .keys import looks_secret
from .quoting import quoted_forms
from .rules import ALNUM

try:  # a compiled wheel; the fallback below is correct but linear in the number of literals
    import ahocorasick_rs
except ImportError:  # pragma: no cover - exercised only without the wheel
    ahocorasick_rs = None  # type: ignore[assignment]

MIN_LITERAL = 4
_PLAIN = bytes(c for c in range(0x20, 0x7F) if c not in b"\"\\&<>'")
"""Bytes that neither ``json.dumps`` (ensure_ascii or not) nor ``html.escape`` change."""
BOUNDED_BELOW = 8
FIND_LOOP_MAX = 24
PREFIX = 8
"""Bytes of each form the automaton indexes (a hit is confirmed on the whole form). Building
is linear in them and scanning is not faster with more: at five copies of the realistic
corpus (59,694 distinct 16-byte prefixes), two workers at once each built the automaton in
0.34-0.44 s at 16 bytes and 0.16-0.18 s at 8, and scanned at 102-114 MB/s either way (its
tables do not fit the caches), with the same hits."""
FORMS_CACHED_MAX = 128
"""Values up to this size keep their encoded forms cached (4,096 values: a few MB at most)."""
SMALL_GROUP = 4
"""Up to this many forms under one prefix are tested one by one (``startswith``); more are
looked up by length (one slice and a set lookup per distinct length)."""
SHORT_TEXT = 128
"""Texts up to this long (member names) are searched by looking up each of their substrings
of a learnable length among the forms (at most ~8,000 lookups), never by building an
automaton over every form for them: pass one asks only member names, and before this each
bundle built the whole automaton once for them (~20 ms at 34 MB, more as forms grow)."""
PENDING_BUDGET = 1 << 22
"""Forms learned since the automaton was built are searched one by one (``bytes.find``)
while their number times the text's length stays under this; past it the automaton is
rebuilt. A member name checked after each member no longer rebuilds an automaton of
tens of thousands of forms for a few new ones."""


def encoded_forms(value: bytes) -> frozenset[bytes]:
    """The forms in which ``value`` may appear elsewhere (itself included)."""
    if type(value) is bytes and len(value) <= FORMS_CACHED_MAX:
        return _cached_forms(value)  # a value is learned by its member, then by the bundle
    return _encoded_forms(value)


@lru_cache(maxsize=4096)
def _cached_forms(value: bytes) -> frozenset[bytes]:
    return _encoded_forms(value)


def _encoded_forms(value: bytes) -> frozenset[bytes]:
    forms = {value}
    forms.update(quoted_forms(value))
    forms.add(binascii.hexlify(value))
    try:
        text = value.decode("utf-8")
    except UnicodeDecodeError:
        text = None
    # escaped for JSON (once, twice) and HTML, a value of plain bytes only is itself
    if text is not None and value.translate(None, _PLAIN):
        import html  # here: its entity tables were ~15 ms of every start-up, few runs get here

        once = json.dumps(text)[1:-1]
        forms.add(once.encode())
        forms.add(json.dumps(once)[1:-1].encode())
        forms.add(json.dumps(text, ensure_ascii=False)[1:-1].encode())
        forms.add(html.escape(text).encode())
    if len(value) >= 6:
        for encoded in (base64.b64encode(value), base64.urlsafe_b64encode(value)):
            forms.add(encoded)
            forms.add(encoded.rstrip(b"="))
    return frozenset(f for f in forms if len(f) >= MIN_LITERAL)


def worth_propagating(value: bytes) -> bool:
    """Whether a redacted value may be removed everywhere it occurs as a bare string.

    A short plain word or number ("enabled", "read", "86400") that a rule once
    redacted would otherwise eat every ordinary occurrence of that word in the
    bundle; such values are redacted where a rule finds them, not propagated.
    Anything of 8+ bytes, or with a digit *and* a letter, or a symbol, is.
    """
    if len(value) < MIN_LITERAL:
        return False
    if len(value) >= 8 and not value.isdigit():
        return True
    has_digit = any(48 <= c <= 57 for c in value)
    has_alpha = any(65 <= c <= 90 or 97 <= c <= 122 for c in value)
    has_other = any(not (48 <= c <= 57 or 65 <= c <= 90 or 97 <= c <= 122) for c in value)
    return (has_digit and has_alpha) or has_other


class LiteralSet:
    """Learned literals -> (kind, identity of their token); the matcher is rebuilt lazily."""

    def __init__(self) -> None:
        self._forms: dict[bytes, tuple[str, bytes]] = {}
        self._originals: dict[bytes, tuple[str, bytes]] = {}
        self._matcher: _Matcher | None = None
        self._longest = 0
        self._heads: set[bytes] | None = None
        """The first :data:`MIN_LITERAL` bytes of every form, once a short text is searched
        (a member's own set never is): where a substring starts with none of them, no form
        starts there (:func:`_substrings_among`)."""

    def __len__(self) -> int:
        return len(self._originals)

    def learn(self, value: bytes, kind: str, identity: bytes, *, force: bool = False) -> bool:
        """Remember ``value`` (whose token is computed from ``identity``); True if new.

        Only values that look like secrets (:func:`~redactors.keys.looks_secret`)
        are learned, unless ``force``: a value of a known token format, a
        literal from the rule file.
        """
        value = value.strip()
        if value in self._originals or b"[REDACTED:" in value or not worth_propagating(value):
            return False
        if not force and not looks_secret(value):
            return False
        entry = (kind, identity)
        self._originals[value] = entry
        forms = self._forms
        fresh = [f for f in encoded_forms(value) if forms.setdefault(f, entry) is entry]
        if fresh:
            self._longest = max(self._longest, *map(len, fresh))
            if self._heads is not None:
                self._heads.update(form[:MIN_LITERAL] for form in fresh)
        matcher = self._matcher
        if matcher is not None and matcher.automaton is not None:
            matcher.pending += fresh  # searched one by one until the automaton is rebuilt
        else:
            self._matcher = None
        return True

    def originals(self) -> dict[bytes, tuple[str, bytes]]:
        return dict(self._originals)

    def learned_since(self, count: int) -> list[tuple[bytes, str, bytes]]:
        """(value, kind, identity) of the values learned after the first ``count``, in order."""
        if count >= len(self._originals):
            return []  # pass two exports after every member and learns nothing: no walk
        return [(v, k, i) for v, (k, i) in islice(self._originals.items(), count, None)]

    def snapshot(self) -> LiteralSet:
        """A copy of the values and their forms as they are, without the automaton.

        A pool worker starts from the coordinator's set: taking the forms as
        computed, instead of learning every value again, saves deriving ~5 encoded
        forms per value in each worker (0.29 -> 0.07 s a worker at 17,692 values); the copy
        pickles without the automaton (for start methods that pickle).
        """
        copy = LiteralSet()
        copy._forms = dict(self._forms)
        copy._originals = dict(self._originals)
        copy._longest = self._longest
        return copy

    def max_len(self) -> int:
        return self._longest

    def find(self, data: bytes) -> list[tuple[int, int, str, bytes]]:
        """Non-overlapping (start, end, kind, identity), longest first at each position."""
        if not self._forms:
            return []
        matcher = self._matcher
        if len(data) <= SHORT_TEXT and (
            matcher is None or matcher.automaton is None or matcher.pending
        ):
            if self._heads is None:
                self._heads = {form[:MIN_LITERAL] for form in self._forms}
            found = _substrings_among(data, self._forms, self._longest, self._heads)
            return _non_overlapping(data, found)
        if matcher is None or len(matcher.pending) * len(data) > PENDING_BUDGET:
            matcher = self._matcher = _Matcher(self._forms)
        return matcher.find(data)


class _Matcher:
    """Finds every learned form in a text in one pass over its bytes.

    ``ahocorasick_rs`` (Rust's ``aho-corasick`` crate) searches bytes
    directly: no latin-1 decode, ~130-180 MB/s over tens of thousands of forms
    on this machine, three to four times pyahocorasick over the same forms.
    The automaton indexes only the first :data:`PREFIX` bytes of each form:
    with 47k forms from a 200 MB log, 16 bytes built in 0.12 s instead of 0.8 s
    for whole forms and scanned as fast, and 8 halve that again (random secrets
    rarely share 8 bytes with ordinary text: 33 prefix hits that were not a
    form in 34 MB of pass one's output); a prefix hit is confirmed with
    ``startswith``, or, for a prefix shared by many forms, by looking the text
    up among them, one slice per distinct length. Forms do share prefixes in
    bulk (the cursors of one API, ``eyJvZmZzZXQiOiAz...``, and their base64 and
    hex forms: 500 forms under one prefix in a 34 MB bundle), and testing each
    with ``startswith`` made pass two grow with bundle size times the number of
    values learned.
    Without the wheel, a ``find`` loop per form is correct but linear in the
    number of forms.
    """

    def __init__(self, forms: dict[bytes, tuple[str, bytes]], *, prefix: int = PREFIX) -> None:
        self.forms = forms
        self.automaton: Any = None
        self.pending: list[bytes] = []
        """Forms learned after the automaton was built (``forms`` is the live dict)."""
        if ahocorasick_rs is not None and len(forms) > FIND_LOOP_MAX:
            groups: dict[bytes, list[bytes]] = {}
            for form in forms:
                groups.setdefault(form[:prefix], []).append(form)
            self.prefixes = list(groups)
            self.groups = [
                tuple(group) if len(group) <= SMALL_GROUP else _by_length(group)
                for group in groups.values()
            ]
            self.automaton = ahocorasick_rs.BytesAhoCorasick(
                self.prefixes, implementation=ahocorasick_rs.Implementation.ContiguousNFA
            )

    def _raw(self, data: bytes) -> Iterator[tuple[int, bytes]]:
        if self.automaton is not None:
            groups = self.groups
            for index, start, _end in self.automaton.find_matches_as_indexes(
                data, overlapping=True
            ):
                group = groups[index]
                if type(group) is dict:
                    for length, same_length in group.items():
                        piece = data[start : start + length]
                        if piece in same_length:
                            yield start, piece
                    continue
                for form in group:
                    if data.startswith(form, start):
                        yield start, form
            forms: Iterable[bytes] = self.pending
        else:
            forms = self.forms
        for form in forms:
            pos = data.find(form)
            while pos >= 0:
                yield pos, form
                pos = data.find(form, pos + 1)

    def find(self, data: bytes) -> list[tuple[int, int, str, bytes]]:
        forms = self.forms
        return _non_overlapping(
            data, [(start, form, forms[form]) for start, form in self._raw(data)]
        )


def _substrings_among(
    data: bytes, forms: dict[bytes, tuple[str, bytes]], longest: int, heads: set[bytes]
) -> list[tuple[int, bytes, tuple[str, bytes]]]:
    """Every (start, form, entry) where a form occurs in ``data``: each substring of a length
    a form can have, looked up (what the automaton finds, for a text too short to build one),
    from the places where some form's first bytes (``heads``) stand."""
    found = []
    get = forms.get
    size = len(data)
    for start in range(size - MIN_LITERAL + 1):
        if data[start : start + MIN_LITERAL] not in heads:
            continue
        for end in range(start + MIN_LITERAL, min(size, start + longest) + 1):
            piece = data[start:end]
            entry = get(piece)
            if entry is not None:
                found.append((start, piece, entry))
    return found


def _non_overlapping(
    data: bytes, found: list[tuple[int, bytes, tuple[str, bytes]]]
) -> list[tuple[int, int, str, bytes]]:
    """(start, end, kind, identity) of the occurrences kept: a short form only between
    non-alphanumeric bytes, then the longest at each position, left to right, none overlapping."""
    kept = []
    for start, form, (kind, token) in found:
        end = start + len(form)
        if len(form) < BOUNDED_BELOW and (
            (start > 0 and data[start - 1] in ALNUM) or (end < len(data) and data[end] in ALNUM)
        ):
            continue
        kept.append((start, end, kind, token))
    kept.sort(key=lambda f: (f[0], -f[1]))
    out: list[tuple[int, int, str, bytes]] = []
    for item in kept:
        if out and item[0] < out[-1][1]:
            continue
        out.append(item)
    return out


def _by_length(forms: list[bytes]) -> dict[int, set[bytes]]:
    """The forms of one (crowded) prefix: length -> the forms of that length."""
    lengths: dict[int, set[bytes]] = {}
    for form in forms:
        lengths.setdefault(len(form), set()).add(form)
    return lengths
