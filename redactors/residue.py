"""What ``bundler review`` looks for besides the detectors: token residue and secret words.

Both ran as one regular expression each over every view, and both had no
literal prefix (an alternation; a look-behind before a character class), so
CPython's ``re`` tried them at every byte: half of the review's time. Here
each starts from a literal found fast (``bytes.find`` of ``[REDACTED:``, one
Aho-Corasick pass for the words) and gives the same matches as the
reference patterns (:data:`RESIDUE`, :data:`SECRET_WORDS`), which the tests
compare against.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from .rules import ALNUM

try:
    import ahocorasick_rs
except ImportError:  # pragma: no cover - exercised only without the wheel
    ahocorasick_rs = None  # type: ignore[assignment]

RESIDUE = re.compile(
    rb"\[REDACTED:(?!keyword:)[a-z0-9-]+:[0-9a-f]{8}\][A-Za-z0-9]{4,}"
    rb"|(?<![\\%A-Za-z0-9])[A-Za-z0-9]{4,}\[REDACTED:(?!keyword:)"
)
"""Alphanumerics glued to a token: a value replaced only in part (keyword tokens are substrings
by design, and escape sequences like ``\\u003d`` are not residue). The reference definition."""
SECRET_WORDS = re.compile(rb"secret|token|passw|api_?key|credential|private")
"""Words near which a high-entropy run is suspicious (matched on lower-cased text)."""

_OPEN = b"[REDACTED:"
_TOKEN = re.compile(rb"\[REDACTED:(?!keyword:)[a-z0-9-]+:[0-9a-f]{8}\]")
_ALNUM_RUN = re.compile(rb"[A-Za-z0-9]+")
_WORDS = [b"secret", b"token", b"passw", b"api_key", b"apikey", b"credential", b"private"]
_WORD_AUTOMATON = (
    ahocorasick_rs.BytesAhoCorasick(_WORDS, matchkind=ahocorasick_rs.MatchKind.LeftmostFirst)
    if ahocorasick_rs is not None
    else None
)
"""Leftmost-first, in the alternation's order: the regular expression's own semantics."""


def residue_spans(data: bytes) -> Iterator[tuple[int, int]]:
    """``(start, end)`` of every :data:`RESIDUE` match, as ``RESIDUE.finditer`` gives them."""
    resume = 0
    at = data.find(_OPEN)
    while at >= 0:
        glued_before = _glued_before(data, at, resume)
        if glued_before is not None and not data.startswith(b"keyword:", at + len(_OPEN)):
            yield glued_before, at + len(_OPEN)
            resume = at + len(_OPEN)
        elif at >= resume and (token := _TOKEN.match(data, at)) is not None:
            run = _ALNUM_RUN.match(data, token.end())
            if run is not None and run.end() - run.start() >= 4:
                yield at, run.end()
                resume = run.end()
        at = data.find(_OPEN, max(at + 1, resume))


def _glued_before(data: bytes, at: int, resume: int) -> int | None:
    """Where 4+ alphanumerics glued before ``[REDACTED:`` start (the second alternative)."""
    start = at
    while start > 0 and data[start - 1] in ALNUM:
        start -= 1
    if at - start < 4 or start < resume:
        return None
    if start > 0 and data[start - 1] in b"\\%":
        return None
    return start


def secret_word_ends(low: bytes) -> Iterator[int]:
    """End offsets of :data:`SECRET_WORDS` matches in lower-cased text, in order."""
    if _WORD_AUTOMATON is None:
        for word in SECRET_WORDS.finditer(low):
            yield word.end()
        return
    for _, _, end in _WORD_AUTOMATON.find_matches_as_indexes(low):
        yield end
