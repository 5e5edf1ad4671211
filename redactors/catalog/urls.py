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
from ..rules import ALNUM, Hit, Rule, View

_SCHEME_BACK = re.compile(rb"[A-Za-z][A-Za-z0-9+.-]{0,30}$")
_AUTHORITY_END = frozenset(b"/?# \t\r\n\"'<>`\\|")
_AUTHORITY_RUN = re.compile(rb"[^/?# \t\r\n\"'<>`\\|]*")
"""The bytes up to the first of :data:`_AUTHORITY_END`, scanned in C (a URL on every line)."""
_HEX = frozenset(b"0123456789abcdefABCDEF")


def _url_userinfo(view: View, match: re.Match[bytes], rule: Rule) -> Iterable[Hit]:
    """``scheme://user:password@host``; the password may contain unencoded ``@``, ``#``, ``/``."""
    data = view.data
    if not _SCHEME_BACK.search(data, max(0, match.start() - 31), match.start()):
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


_WEBHOOK_HOSTS = re.compile(
    rb"(?:hooks\.slack\.com/(?:services|workflows|triggers)/"
    rb"|(?:discord|discordapp)\.com/api/webhooks/"
    rb"|[a-z0-9-]+\.webhook\.office\.com/webhookb?2?/)"
)


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
