"""Passwords given to a data store's own login command, as a transcript or a monitor shows it.

Workflow engines keep their queues and results in Redis and MongoDB, and a support bundle
holds what their operators typed and what the stores logged. Redis's ``AUTH [user]
password`` reaches a log two ways: a ``redis-cli`` session pasted as it was
(``127.0.0.1:6379> AUTH s3cret``) and ``MONITOR``, which prints every command with its
arguments quoted (``"AUTH" "default" "s3cret"``). MongoDB's shell takes
``db.auth("user", "s3cret")``. None of them names the value with a key, so the key rules
never see it; ``redis-cli -a`` and ``redis-cli AUTH`` on a command line are the positional
and flag rules' (:mod:`.positional`, :mod:`.cliflags`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ..keys import is_placeholder
from ..rules import Hit, Rule, View
from ..tokens import TOKEN_MARK

_QUOTED = re.compile(rb'[ \t]+"((?:[^"\\\r\n]|\\.)*)"')
_WORD = re.compile(rb"[ \t]+([^ \t\r\n]+)")
_PROMPT = re.compile(rb":[0-9]{1,5}(?:\[[0-9]{1,5}\])?")
"""How a ``redis-cli`` prompt ends before its ``>``: the port (``127.0.0.1:6379>``), then the
selected database if not 0 (``127.0.0.1:6379[2]>``)."""
_JS_STRING = re.compile(rb"""[ \t]*(["'])((?:(?!\1)[^\\\r\n]|\\.)*)\1[ \t]*""")


def _last_of_one_or_two(view: View, start: int, item: re.Pattern[bytes]) -> Iterable[Hit]:
    """The last of the one or two arguments ``item`` reads from ``start`` to the line's end
    (``AUTH pw`` or ``AUTH user pw``); nothing when there are more or other text follows."""
    data = view.data
    spans: list[tuple[int, int]] = []
    pos = start
    while len(spans) < 3:
        found = item.match(data, pos)
        if found is None:
            break
        spans.append(found.span(1))
        pos = found.end()
    line_end = data.find(b"\n", pos)
    rest = data[pos : len(data) if line_end < 0 else line_end]
    if not 1 <= len(spans) <= 2 or rest.strip():
        return
    if TOKEN_MARK in data[start:pos]:
        return  # a rule took part of the line already: the words counted here are not AUTH's
    begin, end = spans[-1]
    if end > begin and not is_placeholder(data[begin:end]):
        yield Hit(begin, end, "password", "redis-auth")


def _redis_auth(view: View, match: re.Match[bytes], rule: Rule) -> Iterable[Hit]:
    data = view.data
    start = match.start()
    if data[start : start + 1] == b'"':  # MONITOR: 1701795600.123 [0 127.0.0.1:5000] "AUTH" "pw"
        if start == 0 or data[start - 1] not in b" \t":
            return
        yield from _last_of_one_or_two(view, match.end(), _QUOTED)
        return
    prompt = data.rfind(b":", max(0, start - 12), start)  # the prompt: "...:6379> AUTH pw"
    if prompt < 0 or _PROMPT.fullmatch(data, prompt, start) is None:
        return
    yield from _last_of_one_or_two(view, match.end(), _WORD)


def _mongo_auth(view: View, match: re.Match[bytes], rule: Rule) -> Iterable[Hit]:
    """``db.auth("user", "pw")``: the second string (a document form's ``pwd`` is a key's)."""
    data = view.data
    user = _JS_STRING.match(data, match.end())
    if user is None or data[user.end() : user.end() + 1] != b",":
        return
    password = _JS_STRING.match(data, user.end() + 1)
    if password is None or data[password.end() : password.end() + 1] not in (b")", b","):
        return
    begin, end = password.span(2)
    if end > begin and not is_placeholder(data[begin:end]):
        yield Hit(begin, end, rule.kind, rule.id)


REDIS_AUTH = Rule(
    "redis-auth",
    "password",
    "cli",
    "The password of Redis's AUTH command in a redis-cli session (after its prompt) or in"
    " MONITOR output (quoted arguments): the last of its one or two arguments.",
    rb'(?:> auth|"auth")(?=[ \t])',
    lower=True,
    handler=_redis_auth,
    examples=(
        ("127.0.0.1:6379> AUTH Rd-s3cret-9", "Rd-s3cret-9"),
        ("cache:6379[2]> auth default Rd-s3cret-9", "Rd-s3cret-9"),
        ('1701795600.512 [0 10.0.0.5:51234] "AUTH" "Rd-s3cret-9"', "Rd-s3cret-9"),
        ('1701795600.512 [0 10.0.0.5:51234] "auth" "worker" "Rd-s3cret-9"', "Rd-s3cret-9"),
    ),
    decoys=(
        "127.0.0.1:6379> AUTH",
        "(error) WRONGPASS invalid username-password pair or user is disabled.",
        "ssh> auth failed for user bob after 3 tries",
        'log: "auth" "ok" "3" "more"',
        "exit 3> auth token refresh",
        "redirect 2> auth errors",
    ),
)

MONGO_AUTH = Rule(
    "mongo-auth",
    "password",
    "cli",
    'The password of the MongoDB shell\'s db.auth("user", "password").',
    rb"db\.auth\(",
    handler=_mongo_auth,
    examples=(
        ('> db.auth("admin", "Mg-s3cret-9")', "Mg-s3cret-9"),
        ("db.auth('flux','Mg-s3cret-9')", "Mg-s3cret-9"),
    ),
    decoys=(
        'db.auth({user: "admin", pwd: passwordPrompt()})',
        "db.auth(user, pw)",
        'db.auth("admin")',
    ),
)
