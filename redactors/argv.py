"""A command line written as a list of arguments: which elements hold its secrets.

Support bundles keep command lines as lists: a Kubernetes container's ``args`` and
``command``, ``docker inspect``'s ``Args`` and ``Cmd``, systemd and ``ps`` exports in JSON.
A flag and its value are then two elements (``["--api-key", "X"]``), and no key names the
value. The line rules see a secret-named flag's value when the two stand on one line
(``"--api-key", "X"``) or are consecutive items of a YAML block list (:mod:`.catalog.keyvalue`),
never in a pretty-printed JSON list, and they know no tool in a list; the structure walk
(:func:`redactors.structure.find_secrets`) asks this module about every list of scalars, so
the redactor and ``bundler review`` (which runs the same walk) take the same values.

The list is read as a command line is (:mod:`.catalog.cliflags`, :mod:`.catalog.userpass`):

* a flag named like a secret's key (``--api-key``, ``--db-password``, ``-token``: the
  walk's own key judgement, :func:`~redactors.keys.secret_kind` and custom key names; a bare
  ``--key`` only before a generated key) takes the next element;
* a known tool's secret flags, as its table says (``redis-cli -a PW``, ``mysql -pPW``,
  ``curl -u user:PW``, ``docker login -p PW``; not ``docker run -p 8080:80``), the tool being
  the last element before the flag that the table knows; a MySQL tool's lone ``-p`` before
  a word the tool cannot take (``["mysql", "-p", PW, "mydb"]``), as on a line;
* ``-p``/``-P`` of another tool as the line rule judges it: beside a user flag, or a value
  shaped like a human password (not ``mkdir -p /x``, ``ssh -p 2222``).

A value that is itself a flag, a placeholder or template (``${API_KEY}``), a reference
(``$PW``, ``*``, ``-``) or empty is not one. A flag that carries its value (``--password=x``)
is the line rules', which see it wherever it is written.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

from .catalog.cliflags import misplaced_password, secret_flags
from .catalog.shellwords import flag_text, is_reference, tool_name
from .catalog.userpass import flag_password, names_user
from .keys import BARE_KEY_NAMES, generated_secret

Classify = Callable[[str], str | None]
Secret = tuple[int, str, bytes]
"""(index of the element holding it, kind, value): the value may be part of the element
(``-pPW``, ``user:PW``)."""

TOOL_FLAG_KIND = "password"
"""The kind of a known tool's secret flag's value, as the line rule names it."""
_WHOLE = b'"'
"""An element is one argument, as a quoted word on a command line is (``is_reference``:
``$PW`` names a variable, a blank inside is part of the value)."""


def argv_secrets(items: Sequence[Any], classify: Classify) -> Iterator[Secret]:
    """The secrets of the argument list ``items`` (a JSON/YAML/TOML list), if it is one."""
    texts = _texts(items)
    if texts is None:
        return
    for index, text in enumerate(texts):
        if len(text) < 2 or text[0] != 0x2D:  # "-"
            continue
        found = None if _value_glued(texts, index) else _named_flag(texts, index, classify)
        if found is None:
            found = _tool_flag(texts, index)
        if found is not None:
            yield found


_ELEMENT_TYPES = (str, int, float)
"""What an argument list holds; any other element (a mapping, a list) makes it none."""


def _texts(items: Sequence[Any]) -> list[bytes] | None:
    """The elements as bytes, or None when the list is no command line (it holds no flag,
    or something other than strings and numbers)."""
    if (
        not items
        or type(items[0]) not in _ELEMENT_TYPES
        or not any(type(item) is str and item[:1] == "-" for item in items)
    ):
        return None  # a list of mappings (a listing's rows) fails on its first element
    texts = []
    for item in items:
        if type(item) is str:
            texts.append(item.encode("utf-8", "surrogateescape"))
        elif type(item) in (int, float):
            texts.append(str(item).encode())
        else:
            return None
    return texts


def _secret_value(value: bytes) -> bool:
    """An element that can be a flag's secret: not a flag, a reference or empty."""
    return bool(value) and not flag_text(value) and not is_reference(value, _WHOLE)


def _named_flag(texts: list[bytes], index: int, classify: Classify) -> Secret | None:
    """``--api-key X``: the element after a flag named like a secret's key."""
    text = texts[index]
    if b"=" in text or index + 1 == len(texts):
        return None
    name = text.lstrip(b"-").decode("utf-8", "surrogateescape")
    value = texts[index + 1]
    kind = classify(name)
    if kind is None and name.lower() in BARE_KEY_NAMES and generated_secret(value):
        kind = "secret-key"  # --key AQBa...==, as the walk takes a bare "key" (Ceph)
    if kind is None or not _secret_value(value) or (value.isdigit() and len(value) < 4):
        return None  # "3": a count, not a credential (PINs have 4+ digits), as for key rules
    return index + 1, kind, value


def _value_glued(texts: list[bytes], index: int) -> bool:
    """Whether the element is a known tool's flag with its value glued on (``mysql``'s
    ``-pListPw-7``): not a flag named like a secret (``plistpw``) whose value is the next
    element, whatever the glued value is (a token too, in what was redacted before)."""
    known = _known_tool(texts, index)
    return known is not None and _flag_of(texts[index], known[1])[1] is not None


def _tool_flag(texts: list[bytes], index: int) -> Secret | None:
    """A short or odd flag that holds a secret for the tool it belongs to."""
    known = _known_tool(texts, index)
    if known is None:
        return _unknown_tool_flag(texts, index)
    at, flags = known
    _, attached, mode = _flag_of(texts[index], flags)
    if mode is None:
        return None
    if mode == "login":  # docker login -p PW (docker run -p 8080:80 is a port)
        if b"login" not in (t.lower() for t in texts[at + 1 : index]):
            return None
        mode = "next"
    if attached is not None:
        where, value = index, attached
    elif mode == "attached" and misplaced_password(tool_name(texts[at]), texts[index + 1 :]):
        where, value = index + 1, texts[index + 1]  # ["mysql", "-p", PW, "mydb"]
    elif mode == "attached" or index + 1 == len(texts) or flag_text(texts[index + 1]):
        return None  # mysql -p alone prompts
    else:
        where, value = index + 1, texts[index + 1]
    part = _part(value, mode)
    if part is None or not _secret_value(part):
        return None
    return where, TOOL_FLAG_KIND, part


def _flag_of(text: bytes, flags: dict[bytes, str]) -> tuple[bytes, bytes | None, str | None]:
    """(flag, value written in the same element or None, mode) of an element: ``-a``,
    ``--user=u:PW``, ``-pPW`` (a value glued on, where the tool's syntax allows it)."""
    name, equals, value = text[1:].partition(b"=")
    if text.startswith(b"--") and equals and name in flags:
        return name, value, flags[name]
    if text[1:] in flags:
        return text[1:], None, flags[text[1:]]
    mode = flags.get(text[1:2])
    if mode in ("attached", "either", "userpass"):
        return text[1:2], text[2:], mode
    return text[1:], None, None


def _part(value: bytes, mode: str) -> bytes | None:
    """The secret inside a flag's value: ``user:PW``, ``pass:PW``, ``user%PW``, ``user,PW``."""
    if mode in ("next", "either", "attached"):
        return value
    if mode == "pass":
        return value[5:] if value.startswith(b"pass:") else None  # env:VAR, file:path: refs
    separator = {"userpass": b":", "percent": b"%", "comma": b","}.get(mode)
    if separator is None or separator not in value:
        return None
    return value.split(separator, 1)[1]


def _known_tool(texts: list[bytes], index: int) -> tuple[int, dict[bytes, str]] | None:
    """The last element before ``index`` that names a tool the flag table knows."""
    for at in range(index - 1, -1, -1):
        flags = secret_flags(tool_name(texts[at]))
        if flags is not None:
            return at, flags
    return None


def _unknown_tool_flag(texts: list[bytes], index: int) -> Secret | None:
    """``-p``/``-P`` of a tool the table does not know, judged as on a command line."""
    if texts[index] not in (b"-p", b"-P") or index + 1 == len(texts):
        return None
    value = texts[index + 1]
    if flag_text(value):
        return None
    at = _owner(texts, index)
    owned = -1 if at is None else at
    tools = [tool_name(texts[i]) for i in (owned - 1, owned) if at is not None and i >= 0]
    after = texts[owned + 1 : index] + texts[index + 2 :]
    if flag_password(tools, value, _WHOLE, paired=names_user(after)):
        return index + 1, TOOL_FLAG_KIND, value
    return None


def _owner(texts: list[bytes], index: int) -> int | None:
    """The element the flag at ``index`` belongs to: the last one before it that is neither
    an option nor an option's value (:func:`.catalog.shellwords.owner`, for a list)."""
    for at in range(index - 1, -1, -1):
        if flag_text(texts[at]):
            continue
        if at > 0 and flag_text(texts[at - 1]) and b"=" not in texts[at - 1]:
            continue
        return at
    return None
