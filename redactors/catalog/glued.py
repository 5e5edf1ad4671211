"""A format token glued to the word before it: ``tokenghp_…``, ``Bearerxoxb-…``.

Format rules stand on a token boundary: no letter or digit before the prefix, so that a
word that merely contains one (``2018-250-xoxo-indieweb-1.jpg``, ``video_box.ico-7a…``,
``xAKIA…`` inside base64) is not taken. A log that writes a token glued to a word (a
missing blank, a concatenation: ``tokenghp_…``) then kept it in clear. Where the prefix is
distinctive (no English word or identifier ends in it and goes on with the format's exact
alphabet and length), the boundary is not needed, and the token is found after a word too.

Distinctive prefixes: five characters or more with a separator (``github_pat_``, ``xoxb-``,
``glpat-``, ``sk_live_``, ``dckr_pat_``, ``shpat_``...), GitHub's ``ghp_``, ``gho_``,
``ghu_``, ``ghs_``, ``ghr_`` (then 36 letters and digits, no separator), and ``AKIA`` when
its 16 characters hold a digit (an upper-case word run holds none), and OpenAI's and
Anthropic's ``sk-proj-``, ``sk-svcacct-``, ``sk-admin-``, ``sk-ant-`` when what follows is
generated (upper and lower case and digits, random-looking): a hyphenated name ends in a
two-letter word and goes on with another (``disk-proj-archive-…``, ``task-admin-…``), a
key does not. Not the short ones (``hf_``, ``npm_``, ``phx_``, ``sk-``, ``SK``, ``glc_``): a
longer identifier ends in those.

The last letter of a terminal escape (``\\x1b[31mghp_…``) is no word: the token stands free
after it, and the escape stays.

The glued word is replaced with the token, not left before it: ``token[REDACTED:…]`` is
what review calls a value cut in part (letters glued to a token), so the word (at most
:data:`GLUED_WORD_MAX` letters and digits) goes too, and the token is computed from the
token alone, the same one it gets where it stands free.
"""

from __future__ import annotations

from ..keys import generated_secret
from ..rules import ALNUM, Hit, View
from ..values import TERMINAL_ESCAPE

__all__ = ["GLUED_WORD_MAX", "distinctive", "glued_hit"]

GLUED_WORD_MAX = 32
"""The longest word a token is taken glued to: a longer run is data (base64), not a word."""
_SEPARATORS = frozenset(b"_-.")
_GITHUB = frozenset({b"ghp_", b"gho_", b"ghu_", b"ghs_", b"ghr_"})
_DIGITS = frozenset(b"0123456789")
_AFTER_A_WORD_END = frozenset({b"sk-proj-", b"sk-svcacct-", b"sk-admin-", b"sk-ant-"})
"""Prefixes a hyphenated name can hold after a word (``disk-proj-``): glued only when generated."""


def distinctive(prefix: bytes, token: bytes) -> bool:
    """Whether a token with this literal ``prefix`` may be found glued to a word."""
    if prefix in _GITHUB:
        return True
    if prefix == b"AKIA":
        return any(c in _DIGITS for c in token[4:])
    if prefix in _AFTER_A_WORD_END:
        return generated_secret(token[len(prefix) :])
    return len(prefix) >= 5 and any(c in _SEPARATORS for c in prefix)


def _ends_an_escape(data: bytes, pos: int) -> bool:
    """Whether a terminal escape (``\\x1b[1;31m``) ends at ``pos``: its last letter is no
    word the token is glued to, and taking it would break the escape."""
    opener = data.rfind(b"\x1b[", max(0, pos - 32), pos)
    if opener < 0:
        return False
    found = TERMINAL_ESCAPE.match(data, opener, pos)
    return found is not None and found.end() == pos


def glued_hit(
    view: View, start: int, end: int, prefix: bytes, kind: str, rule_id: str
) -> Hit | None:
    """The hit for a token at ``start:end`` with a letter or digit before it: the word it is
    glued to and the token, or None when the prefix is not distinctive or the run of letters
    and digits before it is longer than a word."""
    data = view.data
    word = start
    while word > 0 and data[word - 1] in ALNUM:
        word -= 1
        if start - word > GLUED_WORD_MAX:
            return None
    token = data[start:end]
    if _ends_an_escape(data, start):  # \x1b[31mghp_…: the token stands free after its colour
        return Hit(start, end, kind, rule_id)
    if word == start or not distinctive(prefix, token):
        return None
    return Hit(word, end, kind, rule_id, identity=token, extra=(token,))
