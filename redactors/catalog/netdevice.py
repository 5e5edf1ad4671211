"""Secrets in network devices' configurations: Cisco IOS/NX-OS and Arista EOS lines.

A ``show running-config`` in a bundle names its secrets by position, with no separator a
key/value rule could stand on:

* ``snmp-server community STRING [view V] [RO|RW] [ACL]``: the community is SNMPv1/v2c's
  password (``public`` too: a device's default is the real one until someone changes it,
  as ``changeme`` is);
* ``username NAME [privilege N] ... password|secret [TYPE] VALUE``;
* ``enable password|secret [level N] [TYPE] VALUE``;
* ``password 7 …``, ``key 7 …``, ``key-string 7 …`` anywhere (``line vty`` sections,
  ``tacacs-server key 7 …``, key chains), and a hash after ``password|secret 5|8|9`` on a
  line of its own;
* ``password [TYPE] VALUE`` in a ``line vty|con|aux|tty`` section (its indented lines): the
  login password of the terminal lines, in clear when no type is written (``password
  cisco``). Only there: an indented ``password ...`` elsewhere may be prose.

``TYPE`` says how the value is written. 0 is clear text, 7 is Cisco's reversible encoding
(a published XOR: anyone can decode it, so it is the password), 6 is AES under the device's
master key: all three are a ``password``. 4, 5, 8, 9 and ``sha512`` are one-way hashes, a
``password-hash`` as the crypt(3) rule names ``$1$…`` (which it finds too: one kind, one
token). The value is the next word; a device writes none of these with blanks.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ..keys import is_placeholder
from ..rules import Hit, Rule, View, runs_past_view

__all__ = ["NETWORK_DEVICE_SECRET"]

_HASH_TYPES = frozenset({b"4", b"5", b"8", b"9", b"sha512", b"sha256"})
_TYPE = re.compile(rb"[0-9]|sha512|sha256")
_LEVEL = re.compile(rb"level[ \t]+[0-9]{1,2}[ \t]+")
_WORD = re.compile(rb"[^ \t\r\n]+")
_TYPE7 = re.compile(rb"[0-9]{2}(?:[0-9A-Fa-f]{2}){4,}")
"""A type-7 value: two decimal digits (the key offset), then a hex byte per character (four at
least: ``key 7 0123`` in prose is no password)."""
_HASHED = re.compile(rb"\$[0-9]+\$[./0-9A-Za-z$]{8,}")
_LINE_LEAD = re.compile(rb"[ \t]*(?:no[ \t]+)?")
_SECRET_WORDS = (b"password", b"secret")
_LINE_SECTION = re.compile(rb"line (?:vty|con|console|aux|tty)(?:[ \t]+[0-9/]+)*[ \t]*\r?$", re.M)
"""A terminal-line section's header: ``line vty 0 4``, ``line con 0``, ``line aux 0``."""
_SECTION_PASSWORD = re.compile(rb"[ \t]+password[ \t]+")
SECTION_LINES = 64
"""The most lines of a ``line`` section read for its password (IOS writes a dozen)."""


def _value(view: View, pos: int, kind_of: bytes | None, rule: Rule) -> Iterable[Hit]:
    """The word at ``pos``, unless it is a placeholder."""
    found = _WORD.match(view.data, pos)
    if found is None:
        return
    if runs_past_view(view, found.end(), pos):
        return
    if not is_placeholder(found.group()):
        kind = "password-hash" if kind_of in _HASH_TYPES else rule.kind
        yield Hit(found.start(), found.end(), kind, rule.id)


def _typed_value(view: View, pos: int, rule: Rule) -> Iterable[Hit]:
    """``[TYPE] VALUE`` at ``pos``: a type word alone before the value says how it is written."""
    data = view.low
    kind_of = None
    found = _TYPE.match(data, pos)
    if found is not None and data[found.end() : found.end() + 1] in (b" ", b"\t"):
        kind_of = found.group()
        pos = found.end()
        while data[pos : pos + 1] in (b" ", b"\t"):
            pos += 1
    yield from _value(view, pos, kind_of, rule)


def _owns_line(view: View, start: int) -> bool:
    """Whether only indentation (and a ``no``) stands before ``start`` on its line."""
    line_start = view.low.rfind(b"\n", 0, start) + 1
    lead = _LINE_LEAD.match(view.low, line_start, start)
    return lead is not None and lead.end() == start


def _device_secret(view: View, match: re.Match[bytes], rule: Rule) -> Iterable[Hit]:
    low = view.low
    head = match.group()
    if head.startswith((b"password", b"secret", b"key")):
        yield from _type_marked(view, match, rule)
        return
    if head.startswith(b"line "):
        yield from _line_section(view, match, rule)
        return
    if not _owns_line(view, match.start()):
        return
    if head.startswith(b"snmp-server"):
        yield from _value(view, match.end(), None, rule)
    elif head.startswith(b"enable"):
        level = _LEVEL.match(low, match.end())
        yield from _typed_value(view, level.end() if level else match.end(), rule)
    else:  # username NAME ... password|secret [TYPE] VALUE
        line_end = low.find(b"\n", match.end())
        line_end = len(low) if line_end < 0 else line_end
        for word in _WORD.finditer(low, match.end(), line_end):
            if word.group() in _SECRET_WORDS:
                pos = word.end()
                while low[pos : pos + 1] in (b" ", b"\t"):
                    pos += 1
                yield from _typed_value(view, pos, rule)
                return


def _line_section(view: View, match: re.Match[bytes], rule: Rule) -> Iterable[Hit]:
    """``line vty 0 4`` then `` password cisco``: the section's indented lines, up to the next
    line that is not indented, hold the terminal lines' password (any type, or none)."""
    data = view.data
    start = match.start()
    if (start and data[start - 1] != 0x0A) or not _LINE_SECTION.match(data, start):
        return  # a section header stands alone at the start of its line
    pos = data.find(b"\n", start)
    for _ in range(SECTION_LINES):
        if pos < 0:
            return
        pos += 1
        end = data.find(b"\n", pos)
        if end < 0 and not view.final:
            view.need_more_from(start)
            return
        if data[pos : pos + 1] not in (b" ", b"\t"):
            return  # the section ended
        found = _SECTION_PASSWORD.match(data, pos, len(data) if end < 0 else end)
        if found is not None:
            yield from _typed_value(view, found.end(), rule)
        pos = end


def _type_marked(view: View, match: re.Match[bytes], rule: Rule) -> Iterable[Hit]:
    """``password 7 0822…`` anywhere; ``secret 5 $1$…`` on a line of its own."""
    if not view.left_ok(match.start()):
        return  # "nopassword 7", "monkey 7"
    kind_of = match.group("type")
    found = _WORD.match(view.data, match.end())
    if found is None:
        return
    value = found.group()
    encoded = kind_of == b"7" and _TYPE7.fullmatch(value) is not None
    hashed = (
        kind_of in _HASH_TYPES
        and match.group().startswith(_SECRET_WORDS)
        and _owns_line(view, match.start())
        and _HASHED.fullmatch(value) is not None
    )
    if encoded or hashed:
        yield from _value(view, match.end(), kind_of, rule)


NETWORK_DEVICE_SECRET = Rule(
    "network-device-secret",
    "password",
    "key-value",
    "Network device configurations (Cisco IOS/NX-OS, Arista EOS): SNMP communities, `username"
    " ... password|secret [type] X`, `enable password|secret X`, type-7 encoded passwords and"
    " keys (reversible, so secrets), type 5/8/9 hashes, `password X` in a `line vty|con|aux`"
    " section.",
    rb"(?:snmp-server[ \t]+community[ \t]+|enable[ \t]+(?:password|secret)[ \t]+"
    rb"|username[ \t]+[^ \t\r\n]+[ \t]"
    rb"|(?:password|secret|key|key-string)[ \t]+(?P<type>[0-9])[ \t]+"
    rb"|line (?:vty|con|aux|tty))",
    lower=False,  # devices write their keywords in lower case; "Enable password auth..." is prose
    handler=_device_secret,
    examples=(
        ("snmp-server community S3cr3tCommunity RO", "S3cr3tCommunity"),
        ("snmp-server community public RO 10", "public"),
        ("username admin privilege 15 password 7 0822455D0A16544541", "0822455D0A16544541"),
        ("username ops password 0 plainhorse", "plainhorse"),
        ("enable password cisco", "cisco"),
        ("enable secret level 15 0 levelhorse", "levelhorse"),
        (
            "enable secret 9 $9$nhEmQVczB7dqsO$X.HsgL6x1il0RxkOSSvyQYwucySCt7qFm4v7pqCxkKM",
            "$9$nhEmQVczB7dqsO$X.HsgL6x1il0RxkOSSvyQYwucySCt7qFm4v7pqCxkKM",
        ),
        ("line vty 0 4\n password 7 094F471A1A0A\n login", "094F471A1A0A"),
        ("line vty 0 4\n exec-timeout 5 0\n password vtyhorse\n login", "vtyhorse"),
        ("line con 0\n password 0 conhorse\n", "conhorse"),
        ("tacacs-server key 7 0822455D0A165445", "0822455D0A165445"),
        ("username admin role network-admin secret sha512 $6$Zq8rT5vWKx9w", "$6$Zq8rT5vWKx9w"),
    ),
    decoys=(
        "username admin privilege 15 nopassword",
        "snmp-server enable traps",
        "enable secret <password>",
        "INFO password 7 days before expiry",
        "press key 7 0123 to continue",
        "show username admin",
        "Enable password authentication for the admin UI",
        "line 42:\n  password reset email sent",
        "line vty 0 4\n login\ninterface Gi0/1\n password reset",
    ),
)
