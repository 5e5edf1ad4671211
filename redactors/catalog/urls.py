"""Secrets inside URLs: the password of ``scheme://user:password@host`` and webhook paths.

Any scheme (``postgres``, ``mongodb+srv``, ``amqp``, ``redis://:pw@``); the
password may hold an unencoded ``@``, ``#``, ``/`` or ``?`` (only the last
``@`` before the host ends it), and a percent-encoded password is also
propagated decoded. A bare token as the user (``https://ghp_...@github.com``,
a Sentry DSN key) is redacted too; an ordinary user name is a network
identifier and stays (``--obfuscate network`` handles it).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ..keys import is_placeholder
from ..rules import ALNUM, Hit, Rule, View, runs_past_view

_SCHEME_CHARS = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+.-"
_NOT_LETTERS = b"0123456789+.-"
_AUTHORITY_END = frozenset(b"/?# \t\r\n\"'<>`\\|")
_AUTHORITY_RUN = re.compile(rb"[^/?# \t\r\n\"'<>`\\|]*")
"""The bytes up to the first of :data:`_AUTHORITY_END`, scanned in C (a URL on every line)."""
_HEX = frozenset(b"0123456789abcdefABCDEF")


def _url_userinfo(view: View, match: re.Match[bytes], rule: Rule) -> Iterable[Hit]:
    """``scheme://user:password@host``; the password may contain unencoded ``@``, ``#``, ``/``."""
    data = view.data
    if not _scheme_before(data, match.start()):
        return
    pos = match.end()
    limit = min(len(data), pos + 2048)
    end = _AUTHORITY_RUN.match(data, pos, limit).end()  # type: ignore[union-attr]
    at = data.rfind(b"@", pos, end)
    if at < 0:
        yield from _webhook_path(view, pos, end, limit)
        at = _late_at(data, pos, end, limit)
        if at < 0:
            return
    colon = data.find(b":", pos, at)
    if colon >= 0:
        if colon + 1 < at and not is_placeholder(data[colon + 1 : at]):
            yield Hit(colon + 1, at, rule.kind, rule.id, extra=_percent_forms(data[colon + 1 : at]))
        return
    user = data[pos:at]
    if _looks_like_token(user):  # https://<token>@github.com, sentry DSN keys
        yield Hit(pos, at, "url-token", rule.id)


def _scheme_before(data: bytes, end: int) -> bool:
    """Whether a scheme ends right before ``end``: a letter in the run of scheme characters
    that ends the 31 bytes before it (or ends before a final newline of them).

    What ``re.compile(rb"[A-Za-z][A-Za-z0-9+.-]{0,30}$").search(data, end - 31, end)``
    answered, trying every start in the window, each running to its end: 2.7 us a URL, most
    of the URL rule's time on a log with a URL on every line. ``rstrip`` finds the run in C.
    """
    window = data[max(0, end - 31) : end]
    for text in (window, window[:-1]) if window.endswith(b"\n") else (window,):
        run = text[len(text.rstrip(_SCHEME_CHARS)) :]
        if run.translate(None, _NOT_LETTERS):
            return True
    return False


_WEBHOOK_HOSTS_PATTERN = (
    rb"(?:hooks\.slack\.com/(?:services|workflows|triggers)/"
    rb"|(?:discord|discordapp)\.com/api/webhooks/"
    rb"|[a-z0-9-]+\.webhook\.office\.com/webhookb?2?/)"
)
_WEBHOOK_HOSTS = re.compile(_WEBHOOK_HOSTS_PATTERN)
URL_WITH_USERINFO_OR_WEBHOOK = (
    rb"://(?=[^ \t\r\n\"'<>`]{0,2047}@|(?i:" + _WEBHOOK_HOSTS_PATTERN + rb"))"
)
"""The ``url-userinfo`` rule's pattern: ``://`` where :func:`_url_userinfo` can find something,
an ``@`` in the token after it (in the authority, or late, within the 2,048 bytes it reads)
or a webhook host right after it. Every other URL (a heartbeat URL on every line of a worker
log) is refused by the regex in C instead of by the handler in Python (~3 us a URL)."""


def _webhook_path(view: View, pos: int, stop: int, limit: int) -> Iterable[Hit]:
    """Slack, Discord and Teams webhook URLs: the path is the credential."""
    found = _WEBHOOK_HOSTS.match(view.low, pos)
    if found is None:
        return
    end = found.end()
    end = _TOKEN_RUN.match(view.data, end, limit).end()  # type: ignore[union-attr]
    if end - found.end() >= 20:
        yield Hit(found.end(), end, "webhook-url", "webhook-url")


_TOKEN_END = frozenset(b" \t\r\n\"'<>`")
_TOKEN_RUN = re.compile(rb"[^ \t\r\n\"'<>`]*")
_HOST_AFTER = re.compile(rb"[A-Za-z0-9][A-Za-z0-9.-]*(?::[0-9]{1,5})?(?:[/?#]|$|[ \t\r\n\"'<>])")


def _late_at(data: bytes, pos: int, stop: int, limit: int) -> int:
    """An ``@`` after a ``/``, ``?`` or ``#`` that belongs to an unencoded password.

    Only when ``user:`` starts the authority and the text up to the ``@`` has no
    ``=``/``&`` (a query string with an e-mail address is not userinfo).
    """
    colon = data.find(b":", pos, stop)
    if colon < 0 or stop >= limit or data[stop] not in b"/?#":
        return -1
    end = stop
    end = _TOKEN_RUN.match(data, end, limit).end()  # type: ignore[union-attr]
    at = data.rfind(b"@", stop, end)
    if at < 0 or b"=" in data[colon:at] or b"&" in data[colon:at]:
        return -1
    return at if _HOST_AFTER.match(data, at + 1) else -1


def _looks_like_token(value: bytes) -> bool:
    if len(value) < 20 or not all(c in ALNUM or c in b"_-" for c in value):
        return False
    return (any(c in b"0123456789" for c in value) and any(c not in _HEX for c in value)) or (
        len(value) >= 32 and all(c in _HEX for c in value)
    )


def _percent_forms(value: bytes) -> tuple[bytes, ...]:
    if b"%" not in value:
        return ()
    try:
        from urllib.parse import unquote_to_bytes

        return (unquote_to_bytes(value),)
    except ValueError:
        return ()


def _in_url_authority(low: bytes, pos: int) -> bool:
    """True when ``pos`` is after ``scheme://`` with no ``/`` or space in between."""
    scheme = low.rfind(b"://", max(0, pos - 256), pos)
    if scheme < 0:
        return False
    between = low[scheme + 3 : pos]
    return not any(c in between for c in b"/ \t\n\"'<>?")


_PATH_WORDS = re.compile(
    rb"(?:reset|password|passwd|token|tokens|invite|invitation|invitations|verify|verification"
    rb"|confirm|confirmation|activate|activation|magic|magic-link|login-link|signin|unlock"
    rb"|recover|recovery|onboarding|enroll|enrollment|join|share|download-token|api-key|secret)"
    rb"[a-z0-9_-]{0,24}/"
)
_SEGMENT_END = frozenset(b"/?#&; \t\r\n\"'<>`),")


def _path_token(view: View, match: re.Match[bytes], rule: Rule) -> Iterable[Hit]:
    """``GET /reset-password/8f14e45f...`` : the random segment after a secret-ish path word."""
    if match.start() == 0 or view.data[match.start() - 1] != 0x2F:
        return  # only a whole path segment: /reset/..., not "token reset"
    found = _PATH_WORDS.match(view.low, match.start())
    if found is None:
        return
    data = view.data
    end = start = found.end()
    while end < len(data) and data[end] not in _SEGMENT_END and end - start < 512:
        end += 1
    if runs_past_view(view, end, match.start()):
        return
    segment = data[start:end]
    if len(segment) >= 16 and _random_segment(segment) and not is_placeholder(segment):
        yield Hit(start, end, rule.kind, rule.id)


def _random_segment(segment: bytes) -> bool:
    """A generated value: 16+ token characters with digits and letters, not a UUID-only id?

    A UUID in a reset link *is* the credential, so UUIDs count here; a plain
    word or a slug (``/reset/forgot-your-password``) does not.
    """
    from ..entropy import entropy

    if not all(c in ALNUM or c in b"_-.~=%" for c in segment):
        return False
    digits = sum(1 for c in segment if 48 <= c <= 57)
    letters = sum(1 for c in segment if c in ALNUM) - digits
    return digits >= 2 and letters >= 2 and entropy(segment) >= 3.0


def _signature(view: View, match: re.Match[bytes], rule: Rule) -> Iterable[Hit]:
    """``X-Amz-Signature=``, ``X-Goog-Signature=``, CloudFront ``Signature=``: the value."""
    data = view.data
    start = end = match.end()
    while end < len(data) and data[end] not in b";&\"' \t\r\n<>,#":
        end += 1
    if runs_past_view(view, end, match.start()):
        return
    if end - start >= 16 and not is_placeholder(data[start:end]):
        yield Hit(start, end, rule.kind, rule.id)


_WEBHOOK_PATH = re.compile(
    rb"(?:hooks\.slack\.com(?:/|_|-|%2f)+(?:services|workflows|triggers)"
    rb"|discord(?:app)?\.com(?:/|_|-|%2f)+api(?:/|_|-|%2f)+webhooks)"
    rb"(?:/|_|-|%2f)+([a-z0-9_-]*?[a-z0-9]{6,}(?:(?:/|_|-|%2f)+[a-z0-9_-]{6,}){1,3})"
)


def _webhook_anywhere(view: View, match: re.Match[bytes], rule: Rule) -> Iterable[Hit]:
    """A Slack or Discord webhook without ``://``: in a file name (``/`` became ``_``), a
    percent-encoded query value, a config key. The path after the host is the secret."""
    if view.low[max(0, match.start() - 3) : match.start()] == b"://":
        return  # a URL: the URL rule has it
    found = _WEBHOOK_PATH.match(view.low, match.start())
    if found is None:
        return
    end = found.end(1)
    while end > found.start(1) and view.data[end - 1] in b"_-":
        end -= 1
    if runs_past_view(view, end, match.start()):
        return
    if end - found.start(1) >= 20:
        yield Hit(found.start(1), end, rule.kind, rule.id)
