"""Credentials a mail or file-transfer client sends, as a protocol transcript shows them.

Workers send alerts over SMTP and fetch inputs over FTP; their debug logs (``curl -v``,
Python's ``smtplib`` at debug level 1, JavaMail's ``mail.debug``, ``swaks``, an
``openssl s_client`` session pasted into a ticket, Dovecot's rawlog) print every command
the client sent. None names its secret with a key: SMTP's ``AUTH PLAIN`` carries
``\\0user\\0password`` in base64, ``AUTH LOGIN`` sends the password as the base64 line that
answers the server's ``334 UGFzc3dvcmQ6`` (``Password:``), IMAP's ``LOGIN`` takes it as its
second argument and FTP's and POP3's ``PASS`` as the rest of the line.

Each rule reads only a client line: one that begins its line, after at most a transcript's
marker (``C:``, ``>``, `` -> ``, ``send: '``), so prose that mentions a command is left.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ..keys import is_placeholder
from ..rules import Hit, Rule, View, line_end_or_hold
from ..tokens import TOKEN_MARK

_CLIENT_MARK = re.compile(rb"[ \t]*(?:(?:[Cc]:|>{1,3}|-{1,2}>|~>|\*\*\*|send:)[ \t]*)?(?:b?['\"])?")
"""What may stand before a client's command on its line: indentation, a transcript's marker
(``C:`` in RFC examples, ``>`` in ``curl -v``, `` -> `` in ``swaks``, `` ~> `` once it runs
over TLS, ``send:`` in ``smtplib``), and the quote a debug print opens (``send: 'AUTH PLAIN
...\\r\\n'``)."""
_TAG = re.compile(rb"(?:[A-Za-z]{0,5}[0-9]{1,6}|[A-Za-z?.*]{1,2})[ \t]+")
"""An IMAP command's tag before the command, as clients and tutorials write them (``a001``,
``A1``, ``1``, ``a``, ``?``): not a command word (``vault login ...``)."""
_LINE_TAIL = re.compile(rb"(?:\\r)?(?:\\n)?['\"]?[ \t\r]*")
"""What a debug print leaves after a command: its escaped CRLF and closing quote."""
_EMPTY_CHALLENGE = re.compile(
    rb"[ \t]*(?:(?:S:|<{1,3}[-~]?|\*\*\*|reply:)[ \t]*)?(?:b?['\"])?(?:334|\+)[ \t]*"
    rb"(?:\\r)?(?:\\n)?['\"]?[ \t\r]*"
)
"""A server's empty SASL challenge on its own line (SMTP ``334 ``, IMAP ``+ ``)."""
_VALUE_BEFORE_TAIL = re.compile(rb"[ \t]*(.*?)(?:\\r)?(?:\\n)?['\"]?[ \t\r]*")
"""The rest of a line but its blanks and a debug print's tail: ``PASS``'s argument."""
_BASE64 = re.compile(rb"[A-Za-z0-9+/]{4,}={0,2}")
_ATOM_OR_QUOTED = re.compile(rb'[ \t]+(?:"((?:[^"\\\r\n]|\\.)*)"|([^ \t\r\n"]+))')
_PASS_CONTEXT = re.compile(rb"(?:^|[ \t>:'\"])(?:USER[ \t]|331[ \t-])", re.MULTILINE)
"""Before a ``PASS``: the ``USER`` command it follows, or FTP's ``331`` reply asking for it."""
_LOOK_BACK = 512


def _client_line(view: View, at: int, *, tagged: bool = False) -> bool:
    """Whether the command at ``at`` begins its line, after at most a transcript's marker
    (and, ``tagged``, an IMAP tag)."""
    data = view.data
    line_start = data.rfind(b"\n", 0, at) + 1
    mark = _CLIENT_MARK.match(data, line_start, at)
    if mark is None:
        return False
    if mark.end() == at:
        return True
    return tagged and _TAG.fullmatch(data, mark.end(), at) is not None


def _past_blanks(data: bytes, pos: int, end: int) -> int:
    while pos < end and data[pos] in b" \t":
        pos += 1
    return pos


def _tail_only(data: bytes, pos: int, end: int) -> bool:
    """Whether nothing but a debug print's tail is left from ``pos`` to the line's ``end``."""
    return _LINE_TAIL.fullmatch(data, pos, end) is not None


def _base64_to_line_end(data: bytes, pos: int, end: int) -> tuple[int, int] | None:
    """A base64 run from ``pos`` that is all that is left of its line (but a print's tail)."""
    run = _BASE64.match(data, pos, end)
    if run is None or not _tail_only(data, run.end(), end):
        return None
    return run.span()


def _hit(view: View, span: tuple[int, int] | None, rule: Rule) -> Iterable[Hit]:
    if span is None:
        return
    begin, end = span
    value = view.data[begin:end]
    if end > begin and TOKEN_MARK not in value and not is_placeholder(value):
        yield Hit(begin, end, rule.kind, rule.id)


def _next_line(view: View, end: int, anchor: int) -> tuple[int, int] | None:
    """Start and end of the line after the one ending at ``end`` (as ``line_end_or_hold`` gave
    it: a line break, or the end of a member's last view): None at the text's end, or when the
    view stops before the next line ends (then held from ``anchor`` for the next view)."""
    if end == len(view.data):
        return None
    stop = line_end_or_hold(view, end + 1, anchor)
    return None if stop is None else (end + 1, stop)


def _client_response(view: View, line: tuple[int, int], rule: Rule) -> Iterable[Hit]:
    """The base64 a client sent alone on ``line`` (after a transcript's marker)."""
    start, end = line
    mark = _CLIENT_MARK.match(view.data, start, end)
    if mark is not None:
        yield from _hit(view, _base64_to_line_end(view.data, mark.end(), end), rule)


def _sasl_initial(view: View, match: re.Match[bytes], rule: Rule) -> Iterable[Hit]:
    """``AUTH PLAIN <base64>`` (SMTP), ``AUTHENTICATE PLAIN <base64>`` (IMAP's SASL-IR),
    XOAUTH2 and OAUTHBEARER alike: the response goes whole. Sent bare, the response is the
    client's next line but one, after the server's empty challenge (``334 `` or ``+ ``)."""
    data, start = view.data, match.start()
    if not _client_line(view, start, tagged=data[start + 4 : start + 5] in (b"e", b"E")):
        return
    end = line_end_or_hold(view, match.end(), start)
    if end is None:
        return
    pos = _past_blanks(data, match.end(), end)
    if not _tail_only(data, pos, end):
        yield from _hit(view, _base64_to_line_end(data, pos, end), rule)
        return
    challenge = _next_line(view, end, start)
    if challenge is None or _EMPTY_CHALLENGE.fullmatch(data, *challenge) is None:
        return
    response = _next_line(view, challenge[1], start)
    if response is not None:
        yield from _client_response(view, response, rule)


def _login_password(view: View, match: re.Match[bytes], rule: Rule) -> Iterable[Hit]:
    """SMTP ``AUTH LOGIN``: the line after the server's ``334 UGFzc3dvcmQ6`` (``Password:``)."""
    start = match.start()
    end = line_end_or_hold(view, match.end(), start)
    if end is None or not _tail_only(view.data, match.end(), end):
        return
    response = _next_line(view, end, start)
    if response is not None:
        yield from _client_response(view, response, rule)


def _imap_login(view: View, match: re.Match[bytes], rule: Rule) -> Iterable[Hit]:
    """``a001 LOGIN user password``: a tag, the command and exactly two arguments."""
    data, start = view.data, match.start()
    if not _client_line(view, start + 1, tagged=True):
        return
    end = line_end_or_hold(view, match.end(), start)
    if end is None:
        return
    spans: list[tuple[int, int]] = []
    pos = match.end()
    while len(spans) < 3:
        found = _ATOM_OR_QUOTED.match(data, pos, end)
        if found is None:
            break
        spans.append(found.span(1) if found.group(1) is not None else found.span(2))
        pos = found.end()
    if len(spans) == 2 and _tail_only(data, pos, end) and data[spans[0][0]] != ord("-"):
        yield from _hit(view, spans[1], rule)  # (a user named by a flag is a shell's command)


def _ftp_pass(view: View, match: re.Match[bytes], rule: Rule) -> Iterable[Hit]:
    """``PASS password`` (FTP, POP3) after the ``USER`` it answers: the rest of the line."""
    data, start = view.data, match.start()
    if not _client_line(view, start):
        return
    end = line_end_or_hold(view, match.end(), start)
    if end is None:
        return
    if _PASS_CONTEXT.search(data, max(0, start - _LOOK_BACK), start) is None:
        return
    value = _VALUE_BEFORE_TAIL.fullmatch(data, match.end(), end)
    if value is not None:  # always, since the tail may be empty
        yield from _hit(view, value.span(1), rule)


SASL_RESPONSE = Rule(
    "sasl-response",
    "password",
    "cli",
    "The response of SMTP's AUTH PLAIN, XOAUTH2 or OAUTHBEARER and IMAP's AUTHENTICATE"
    " (base64 of the user and password, or of a bearer token), on a client's line of a"
    " transcript: after the command or on the line after the server's empty challenge.",
    rb"(?:auth plain|auth xoauth2|auth oauthbearer|authenticate plain|authenticate xoauth2"
    rb"|authenticate oauthbearer)(?=[ \t\r\n'\\])",  # whole phrases: "auth" alone is everywhere
    lower=True,
    handler=_sasl_initial,
    examples=(
        ("C: AUTH PLAIN AGFsaWNlAGh1bnRlcjJ4eQ==", "AGFsaWNlAGh1bnRlcjJ4eQ=="),
        ("send: 'AUTH PLAIN AGFsaWNlAGh1bnRlcjJ4eQ==\\r\\n'", "AGFsaWNlAGh1bnRlcjJ4eQ=="),
        (" -> AUTH PLAIN AGFsaWNlAGh1bnRlcjJ4eQ==", "AGFsaWNlAGh1bnRlcjJ4eQ=="),
        ("a002 AUTHENTICATE PLAIN AGFsaWNlAGh1bnRlcjJ4eQ==", "AGFsaWNlAGh1bnRlcjJ4eQ=="),
        ("> AUTH PLAIN\n< 334 \n> AGFsaWNlAGh1bnRlcjJ4eQ==", "AGFsaWNlAGh1bnRlcjJ4eQ=="),
        (
            "AUTH XOAUTH2 dXNlcj1ib2IBYXV0aD1CZWFyZXIgeWEyOS5hMGIBAQ==",
            "dXNlcj1ib2IBYXV0aD1CZWFyZXIgeWEyOS5hMGIBAQ==",
        ),
    ),
    decoys=(
        "250-AUTH PLAIN LOGIN CRAM-MD5",
        "the server offers AUTH PLAIN only over TLS",
        "C: AUTH PLAIN =",
        "> AUTH PLAIN\n< 535 5.7.8 Authentication credentials invalid",
    ),
)

LOGIN_PASSWORD = Rule(
    "smtp-login-password",
    "password",
    "cli",
    "SMTP AUTH LOGIN: the base64 line a client sends after the server's 334 challenge"
    " that asks for the password.",
    rb"334 [uc]gfzc3dvcmq6",
    lower=True,
    handler=_login_password,
    examples=(
        ("S: 334 UGFzc3dvcmQ6\nC: aHVudGVyMnh5", "aHVudGVyMnh5"),
        ("< 334 UGFzc3dvcmQ6\r\n> aHVudGVyMnh5\r\n", "aHVudGVyMnh5"),
        ("reply: b'334 UGFzc3dvcmQ6\\r\\n'\nsend: 'aHVudGVyMnh5\\r\\n'", "aHVudGVyMnh5"),
        ("334 UGFzc3dvcmQ6\naHVudGVyMnh5", "aHVudGVyMnh5"),
    ),
    decoys=(
        "S: 334 VXNlcm5hbWU6\nC: YWxpY2U=",
        "S: 334 UGFzc3dvcmQ6\nS: 535 5.7.8 Authentication failed",
    ),
)

IMAP_LOGIN = Rule(
    "imap-login",
    "password",
    "cli",
    "IMAP's LOGIN command (a tag, LOGIN, the user and the password) on a client's line of a"
    " transcript: its second argument.",
    rb" login(?=[ \t])",
    lower=True,
    handler=_imap_login,
    examples=(
        ("a001 LOGIN alice imap-pw-553", "imap-pw-553"),
        ('C: A1 login "alice" "two words"', "two words"),
        ("> A001 LOGIN flux@example.com Imap$ecret", "Imap$ecret"),
    ),
    decoys=(
        "user login failed for alice",
        "2026-12-01 a failed login attempt from 10.0.0.5",
        "new login from alice 10.0.0.5",
        "a001 LOGIN alice",
        "* OK [CAPABILITY IMAP4rev1 LOGIN-REFERRALS] ready",
        "please login again",
        "vault login -method=userpass username=alice",
        "to login as root run sudo",
    ),
)

FTP_PASS = Rule(
    "ftp-pass",
    "password",
    "cli",
    "FTP's and POP3's PASS command after the USER it answers, on a client's line of a"
    " transcript: the rest of the line.",
    rb"PASS(?=[ \t])",
    handler=_ftp_pass,
    examples=(
        ("USER alice\nPASS ftp-pw-1298", "ftp-pw-1298"),
        ("> USER bob\n< 331 Please specify the password.\n> PASS Ftp pw 7", "Ftp pw 7"),
        ("C: USER flux\nS: +OK\nC: PASS pop3-s3cret", "pop3-s3cret"),
    ),
    decoys=(
        "PASS tests/e2e/login.spec.ts",
        "USER alice\nPASS ****",
        " PASS  src/app.test.js",
    ),
)

TRANSCRIPT_RULES = (SASL_RESPONSE, LOGIN_PASSWORD, IMAP_LOGIN, FTP_PASS)
