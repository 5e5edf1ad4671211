"""High-entropy fallback (redaction.md §1.7 row 16): a random-looking run near a secret word.

Catches prose forms that have no separator ("token is 9f8ZqA7b..."), shared by
the redactor (a branch of the key/value rules) and the reviewer. The run must
be 24+ characters of a token alphabet, contain a digit, not be a hex digest
or UUID (commit SHAs, request ids are decoys) and have Shannon entropy of at
least 4.2 bits per character.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from functools import lru_cache

RUN = re.compile(rb"(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{24,}={0,2}")
"""A token-alphabet run, whole: ``=`` only as base64 padding at its end, so ``request_id=``
is not glued to the id after it."""
_WORD_START = re.compile(rb"(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]")
HEXISH = re.compile(rb"(?:0x)?[0-9a-fA-F-]+=*")
WINDOW = 48
MIN_BITS = 4.2


def entropy(value: bytes) -> float:
    """Shannon entropy in bits per byte (the terms come from a table per length, computed
    as ``c / n * log2(c / n)`` exactly as a direct sum would, in the same order)."""
    n = len(value)
    counts = Counter(value)
    if n > TABLE_MAX:
        return -sum(c / n * math.log2(c / n) for c in counts.values())
    terms = _terms(n)
    return -sum([terms[c] for c in counts.values()])


TABLE_MAX = 4096


def at_least(value: bytes, bits: float) -> bool:
    """``entropy(value) >= bits``, without the sum where the answer is certain.

    Shannon entropy is never below the min-entropy ``-log2(max_count / n)``: when the
    most frequent byte is rare enough, the value passes without the per-byte terms
    (a random key's 100 characters, with no byte more than 5 times). The bound and
    ``bits`` are irrational apart from at whole counts far from any float rounding,
    so the two answers agree wherever the shortcut is taken.
    """
    n = len(value)
    if not n:
        return bits <= 0.0
    counts = Counter(value)
    if max(counts.values()) * 2.0**bits <= n and bits > 0:
        return True
    if n > TABLE_MAX:
        return -sum(c / n * math.log2(c / n) for c in counts.values()) >= bits
    terms = _terms(n)
    return -sum([terms[c] for c in counts.values()]) >= bits


@lru_cache(maxsize=256)
def _terms(n: int) -> list[float]:
    return [0.0] + [c / n * math.log2(c / n) for c in range(1, n + 1)]


def random_looking(value: bytes) -> bool:
    if b"REDACTED" in value or HEXISH.fullmatch(value):
        return False
    return entropy(value) >= MIN_BITS and any(0x30 <= c <= 0x39 for c in value)


def run_after(data: bytes, pos: int) -> tuple[int, int] | None:
    """The first token-alphabet run starting in the window after ``pos``, if it looks random.

    The window ends at the line's end (prose names its secret on the same
    line). The run is taken whole even where it goes on past the window:
    cutting it at the window's end would replace part of a value and leave
    the rest.
    """
    end = min(len(data), pos + WINDOW)
    newline = data.find(b"\n", pos, end)
    end = newline if newline >= 0 else end
    for start in _WORD_START.finditer(data, pos, end):
        found = RUN.match(data, start.start())
        if found is not None:
            if data[max(0, found.start() - 7) : found.start()].endswith(PUBLIC_PREFIXES):
                return None  # an SSH host-key fingerprint: public, what a user is asked to check
            return found.span() if random_looking(found.group()) else None
    return None


PUBLIC_PREFIXES = (b"SHA256:", b"sha256:", b"MD5:", b"SHA512:", b"sha512:")
"""A run right after these is a digest or fingerprint (``SHA256:<base64>`` of a public key,
``sha256:<hex>`` of an image), not a secret."""
