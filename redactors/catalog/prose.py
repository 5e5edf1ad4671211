"""A password named in prose: ``password is Hunter2-x``, ``the password was "pw"``.

Prose has no separator to say where a value is, and it is where over-redaction lives
(``the password was changed yesterday``, ``password is required``, ``password is set to
expire``), so only what looks like a password counts: a word that mixes letters with
digits or symbols, or, after a verb that says a value follows (``is``, ``was``, ``set
to``...), whatever the sentence put in quotes.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ..keys import is_placeholder
from ..rules import Hit, Rule, View, runs_past_view
from ..tokens import TOKEN_MARK, TOKEN_RE, clear_text

_PROSE_WORD = re.compile(rb"[^\s\"'\\<>`{}\[\],;]{6,64}")
"""The word after the keyword: up to a blank, a quote or what closes a structure around it."""
_PROSE_TRAILING = b".:)"
_NOT_A_PASSWORD = re.compile(
    rb"v?\d+(?:[.:]\d+)+[a-z]*|[0-9a-f-]+|\d+(?:ms|s|m|h|d|%|x)?|\[redacted:.*",
    re.IGNORECASE,
)
"""A version, time or address; hex (a digest: the hex prose rule judges those); a number
or a duration; a token already written."""
_INNER_SYMBOL = re.compile(rb"[A-Za-z0-9][!#$%^&*+?~]+[A-Za-z0-9]")
"""A symbol that marks a word as a password: between letters or digits (``Hunter!pass``).
At a word's edges symbols are emphasis, punctuation or syntax (``**required**``, ``wrong?``,
``(*string)``), and ``-``, ``_`` and ``.`` join ordinary words (``auto-generated``)."""
_QUOTED_MAX = 64


_TOKEN_WORD = re.compile(rb"(?:%s|[^\s\"'\\<>`{}\[\],;&|]){1,64}" % TOKEN_RE.pattern)
"""The word after the keyword when it holds a redaction token: the token is one piece of
it. It also ends where a key's unquoted value ends (``&``, ``|``), so what another rule
left after its token is not read as more of this word."""


def _prose_password(view: View, match: re.Match[bytes], rule: Rule) -> Iterable[Hit]:
    """``password is Hunter2-x``, ``passwd Pw0rd-77 accepted``: a password named in prose.

    No separator says where a value is, so only a word shaped like a human
    password counts: 6 to 64 characters with a letter and a digit or a symbol
    inside it, not a path, URL, ``key=value``, version, duration, digest or
    placeholder. ``password reset email sent`` and ``password for alice2
    rejected`` keep every word (the word after the keyword is a plain one). After
    a verb (``the password was "pw"``) a quoted value is taken whatever it looks like.
    """
    data = view.data
    if match.group("verb") is not None and data[match.end() : match.end() + 1] in (b'"', b"'"):
        yield from _quoted(view, match, rule)
        return
    tokened = (
        _TOKEN_WORD.match(data, match.end())
        if data.find(TOKEN_MARK, match.end(), match.end() + 64) >= 0
        else None
    )
    if tokened is not None and TOKEN_MARK in tokened.group():
        yield from _prose_tail(view, match, tokened, rule)
        return
    found = _PROSE_WORD.match(data, match.end())
    if found is None or (span := _word_span(view, match, found)) is None:
        return
    start, end = span
    word = data[start:end]
    if len(word) < 6 or not (_has_letter(word) and (_has_digit(word) or _has_symbol(word))):
        return
    if b"/" in word or b"=" in word or b"@" in word or _NOT_A_PASSWORD.fullmatch(word):
        return
    if not is_placeholder(word):
        yield Hit(start, end, rule.kind, rule.id)


def _quoted(view: View, match: re.Match[bytes], rule: Rule) -> Iterable[Hit]:
    """``the password was "Hunter2"``: the sentence quoted it, so it is the value, on its
    line and up to 64 characters; what a redaction left in clear beside a token is its tail.
    """
    data = view.data
    start = match.end() + 1
    close = data.find(data[match.end() : start], start, start + _QUOTED_MAX + 1)
    if close < 0:
        if len(data) - start <= _QUOTED_MAX and not view.final:
            view.need_more_from(match.start())
        return
    value = data[start:close]
    if not value.strip() or b"\n" in value or is_placeholder(value):
        return
    if TOKEN_MARK in value and not clear_text(value).strip():
        return  # already redacted
    yield Hit(start, close, rule.kind, rule.id)


def _prose_tail(
    view: View, match: re.Match[bytes], found: re.Match[bytes], rule: Rule
) -> Iterable[Hit]:
    """``password is [REDACTED:...]-x9``: a prose password a redaction replaced in part.

    The token shows the word was taken for a password; how long or how shaped it was, the
    token hides, so only what is still in clear is judged: a path, URL or ``key=value``
    never was a prose password; anything else beside the token is its tail (the engine
    replaces the clear pieces and leaves the token).
    """
    span = _word_span(view, match, found)
    if span is None:
        return
    start, end = span
    word = view.data[start:end]
    clear = clear_text(word)
    if b"/" in clear or b"=" in clear or b"@" in clear:
        return
    if not is_placeholder(word):
        yield Hit(start, end, rule.kind, rule.id)


def _word_span(
    view: View, match: re.Match[bytes], found: re.Match[bytes]
) -> tuple[int, int] | None:
    """Where the word ``found`` after the keyword lies, less its trailing punctuation; None
    (and the view asked for more) when it may run on past the end of the text."""
    data = view.data
    start, end = found.span()
    if runs_past_view(view, end, match.start()):
        return None
    while end > start and data[end - 1] in _PROSE_TRAILING:
        end -= 1
    return start, end


def _has_letter(word: bytes) -> bool:
    return word.lower() != word.upper()


def _has_digit(word: bytes) -> bool:
    return any(0x30 <= c <= 0x39 for c in word)


def _has_symbol(word: bytes) -> bool:
    return _INNER_SYMBOL.search(word) is not None


PROSE_PASSWORD = Rule(
    "prose-password",
    "password",
    "key-value",
    "A password named in prose with no separator (`password is <word>`, `passwd <word>"
    ' accepted`, `the password was "<value>"`): a word mixing letters with digits or'
    " symbols right after the keyword, or a quoted value after a verb.",
    rb"pass(?:word|wd|phrase)"
    rb"(?P<verb>[ \t]+(?:is|was|now|has[ \t]+been)(?:[ \t]+(?:set|changed|reset)[ \t]+to)?"
    rb"|[ \t]+(?:set|changed|reset)[ \t]+to)?[ \t]*:?[ \t]+",
    lower=True,
    left_boundary=True,
    handler=_prose_password,
    examples=(
        ("login failed: password is Hunter2-prose", "Hunter2-prose"),
        ("INFO passwd Pw0rd-77 accepted", "Pw0rd-77"),
        ("WARN the password was: Pl4in-old.", "Pl4in-old"),
        ("the admin password is set to Hunter2-Prose17", "Hunter2-Prose17"),
        ('the password was "Hunter2-Prose18"', "Hunter2-Prose18"),
        ("password was reset to 'amber falcon'", "amber falcon"),
        ("password is Hunter!pass", "Hunter!pass"),
    ),
    decoys=(
        "password reset email sent",
        "password for alice2 rejected",
        "password policy v2.1 applied",
        "password check took 35ms",
        "password hash e3b0c44298fc1c149afbf4c8996fb924",
        "password file /etc/app/pw2.txt",
        "the password was changed yesterday",
        "password is required",
        "password is **required**",
        "password is set to expire",
        "the password was auto-generated",
        'password is ""',
        'password is "${DB_PASSWORD}"',
        "wrong password? try again",
        "password (*string)",
    ),
)
