"""Passwords handed to a tool on its standard input, written out on the command line.

``echo PW | docker login --password-stdin``, ``echo 'alice:PW' | chpasswd``,
``echo PW | sudo -S cmd``, ``passwd --stdin alice <<< PW`` and a here-document
into ``chpasswd``: the tool's flags are harmless and the secret stands before
the pipe or after the redirection, where no key names it. The consumer decides:
only a tool that reads a password from standard input makes ``echo``'s words
one (``echo hello | grep passwd`` stays). ``chpasswd`` reads ``user:password``
lines, so only what follows each user's colon goes.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from ..rules import Hit, Rule, View
from .shellwords import (
    COMMAND_MAX,
    Word,
    after_prompt,
    command_at,
    is_reference,
    line_end,
    name,
    segment_start,
    words,
)

__all__ = ["STDIN_PASSWORD"]

_WHOLE, _USER_LINES = "whole", "user-lines"
_READS_A_PASSWORD = frozenset({b"passwd", b"smbpasswd", b"cryptsetup", b"vncpasswd"})
_WRAPPERS = frozenset({b"sudo", b"doas", b"env", b"command", b"exec", b"nohup"})
_WRAPPER_VALUED = frozenset({b"-u", b"-g", b"-p", b"-C", b"-h", b"-U", b"-D", b"-r", b"-t"})
_ECHO_OPTION = re.compile(rb"-[neE]+")
_OPENSSL_STDIN = re.compile(rb"-pass(?:in|out)? stdin")
_HEREDOC = re.compile(rb"<<(-?)[ \t]*([\"']?)([A-Za-z0-9_.-]+)\2")
HEREDOC_LINES = 64
"""The most lines (and :data:`COMMAND_MAX` x 4 bytes) of a here-document read for passwords
(``chpasswd``'s users)."""


def _consumer(data: bytes, args: list[Word]) -> str | None:
    """How the command in ``args`` reads standard input: a password (``_WHOLE``), lines of
    ``user:password`` (``_USER_LINES``, chpasswd) or not as a secret (None)."""
    texts = [w.text(data) for w in args]
    command, sudo_stdin, valued = None, False, False
    for word, text in zip(args, texts, strict=True):
        if valued:
            valued = False
        elif text.startswith(b"-"):
            sudo_stdin = sudo_stdin or text in (b"-S", b"--stdin")
            valued = text in _WRAPPER_VALUED
        elif name(data, word) not in _WRAPPERS and b"=" not in text:
            command = name(data, word)
            break
    if command is None:
        return None
    if command == b"chpasswd":
        return _USER_LINES
    if sudo_stdin or command in _READS_A_PASSWORD or b"--password-stdin" in texts:
        return _WHOLE
    flags = [t for t in texts if t.startswith(b"-") and not t.startswith(b"--")]
    if command == b"htpasswd" and any(b"i" in t for t in flags):
        return _WHOLE
    if command in (b"gpg", b"gpg2") and (
        b"--passphrase-fd=0" in texts or b"--passphrase-fd 0" in b" ".join(texts)
    ):
        return _WHOLE
    if command == b"openssl" and _OPENSSL_STDIN.search(b" ".join(texts)):
        return _WHOLE
    return None


def _pieces(data: bytes, start: int, end: int) -> Iterator[tuple[int, int]]:
    """The lines of an ``echo -e``/``printf`` argument: split at each written ``\\n``."""
    while start < end:
        cut = data.find(b"\\n", start, end)
        stop = end if cut < 0 else cut
        if stop > start:
            yield start, stop
        start = stop + 2


def _hits(
    data: bytes, spans: Iterable[tuple[int, int]], mode: str, quote: bytes, rule: Rule
) -> Iterator[Hit]:
    for start, end in spans:
        if mode == _USER_LINES:
            colon = data.find(b":", start, end)
            if colon <= start:
                continue
            start = colon + 1
        value = data[start:end].strip(b" \t\r")
        if value and not is_reference(value, quote):
            lead = data.find(value, start, end)
            yield Hit(lead, lead + len(value), rule.kind, rule.id)


def _piped(view: View, match: re.Match[bytes], rule: Rule) -> Iterator[Hit]:
    """``echo [-n|-e] PW | consumer``, ``printf FORMAT PW | consumer``, ``yes PW | consumer``
    (its words, repeated), each also inside a group piped as one."""
    data = view.data
    if not command_at(data, match.start()):
        return
    end = line_end(view, match.end(), match.start())
    if end is None:
        return
    args = list(words(data, match.end(), end))
    pipe = _skip_blanks(data, args[-1].end if args else match.end(), end)
    if data[pipe : pipe + 1] in (b";", b")"):  # (echo PW; echo PW) | passwd
        pipe = _after_group(data, pipe, end)
    if data[pipe : pipe + 1] != b"|" or data[pipe + 1 : pipe + 2] == b"|":
        return
    mode = _consumer(data, list(words(data, pipe + 1, end)))
    if mode is None:
        return
    tool = view.low[match.start() : match.end()].strip()
    if tool == b"echo":
        while args and _ECHO_OPTION.fullmatch(args[0].text(data)):
            args = args[1:]
    elif tool == b"printf" and len(args) > 1:
        args = args[1:]  # printf's format, then its arguments
    if not args or any(is_reference(w.value(data), w.quote) for w in args):
        return
    quote = args[0].quote if len(args) == 1 else b""
    start, stop = args[0].value_start, args[-1].value_end
    yield from _hits(data, _pieces(data, start, stop), mode, quote, rule)


def _skip_blanks(data: bytes, pos: int, end: int) -> int:
    while pos < end and data[pos] in b" \t":
        pos += 1
    return pos


_GROUP_COMMANDS = 8
"""The most commands of a ``( … )`` or ``{ …; }`` group walked to find the pipe after it."""


def _after_group(data: bytes, pos: int, end: int) -> int:
    """Past the end of the group an ``echo`` stands in (``(echo PW; echo PW) | passwd``,
    ``{ echo PW; echo PW; } | smbpasswd -s``), when it holds only ``echo`` and ``printf``:
    where a pipe into the consumer would stand (``end`` when it is no such group)."""
    for _ in range(_GROUP_COMMANDS):
        if data[pos : pos + 1] == b")":
            return _skip_blanks(data, pos + 1, end)
        if data[pos : pos + 1] != b";":
            return end
        pos = _skip_blanks(data, pos + 1, end)
        if data[pos : pos + 1] == b"}":
            return _skip_blanks(data, pos + 1, end)
        following = list(words(data, pos, end))
        if not following or name(data, following[0]) not in (b"echo", b"printf"):
            return end
        pos = _skip_blanks(data, following[-1].end, end)
    return end


def _redirected(view: View, match: re.Match[bytes], rule: Rule) -> Iterator[Hit]:
    """``consumer <<< PW`` and a here-document (``chpasswd <<EOF`` ... ``EOF``)."""
    data = view.data
    at = match.start()
    end = line_end(view, at, at)
    if end is None:
        return
    mode = _consumer(data, after_prompt(data, list(words(data, segment_start(data, at), at))))
    if mode is None:
        return
    if data[at + 2 : at + 3] == b"<":
        value = next(words(data, at + 3, end), None)
        if value is not None and not value.text(data).startswith(b"<"):
            spans = _pieces(data, value.value_start, value.value_end)
            yield from _hits(data, spans, mode, value.quote, rule)
        return
    heredoc = _HEREDOC.match(data, at, end)
    if heredoc is None or data[end : end + 1] != b"\n":
        return  # not a here-document, or its line is longer than a command is read
    tabs, quoted, delimiter = heredoc.group(1), heredoc.group(2), heredoc.group(3)
    lines: list[tuple[int, int]] = []
    pos = end + 1
    while len(lines) < HEREDOC_LINES and end < pos < len(data) and pos - end < COMMAND_MAX * 4:
        stop = data.find(b"\n", pos)
        if stop < 0:
            if not view.final:
                view.need_more_from(at)
                return
            stop = len(data)
        line = data[pos:stop].rstrip(b"\r")
        if (line.lstrip(b"\t") if tabs else line) == delimiter:
            break
        lines.append((pos, pos + len(line)))
        pos = stop + 1
    yield from _hits(data, lines, mode, b"'" if quoted else b"", rule)


def _stdin_password(view: View, match: re.Match[bytes], rule: Rule) -> Iterable[Hit]:
    if view.data[match.start()] == 0x3C:  # "<"
        yield from _redirected(view, match, rule)
    else:
        yield from _piped(view, match, rule)


STDIN_PASSWORD = Rule(
    "stdin-password",
    "password",
    "cli",
    "A password written on the command line for a tool that reads it from standard input:"
    " `echo <password> | docker login --password-stdin`, `| passwd --stdin`, `| chpasswd`"
    " (`<user>:<password>` lines),"
    " `| sudo -S`, `| cryptsetup`, `htpasswd -i`, `gpg --passphrase-fd 0`, a `<<<` here-string"
    " and a here-document; also `yes <password> | passwd` and a group of `echo` commands piped"
    " as one.",
    rb"(?:echo|printf|yes)[ \t]|<<",
    lower=True,
    handler=_stdin_password,
    examples=(
        ("echo S3cretPass! | docker login --password-stdin", "S3cretPass!"),
        ("echo 'correcthorse' | podman login -u alice --password-stdin reg", "correcthorse"),
        ("echo 'alice:S3cretPass!' | chpasswd", "S3cretPass!"),
        ("echo alice:chpasshorse | sudo chpasswd", "chpasshorse"),
        ("echo sudohorse | sudo -S apt-get update", "sudohorse"),
        ("echo -e 'oldhorse\\nnewhorse\\nnewhorse' | passwd alice", "newhorse"),
        ("echo -e 'oldhorse\\nnewhorse\\nnewhorse' | passwd alice", "oldhorse"),
        ("printf '%s' luks-horse | cryptsetup luksOpen /dev/sdb1 vault -", "luks-horse"),
        ("passwd --stdin alice <<< 'herestring horse'", "herestring horse"),
        ("alice@web01:~$ sudo chpasswd <<< 'alice:prompthorse'", "prompthorse"),
        ("chpasswd <<'EOF'\nalice:heredochorse\nbob:Pa$$-w0rd\nEOF\n", "heredochorse"),
        ("chpasswd <<'EOF'\nalice:heredochorse\nbob:Pa$$-w0rd\nEOF\n", "Pa$$-w0rd"),
        ("yes yes-horse | passwd alice", "yes-horse"),
        ("(echo sub-horse; echo sub-horse) | passwd alice", "sub-horse"),
        ("{ echo brace-horse; echo brace-horse; } | smbpasswd -s -a alice", "brace-horse"),
    ),
    decoys=(
        "echo hello | grep passwd",
        'echo "$REGISTRY_PASSWORD" | docker login --password-stdin',
        "echo $PW | sudo -S reboot",
        "printf '%s\\n' \"$PW\" | passwd --stdin alice",
        "cat pw.txt | docker login --password-stdin",
        "echo done || passwd alice",
        "chpasswd <<EOF\nalice:$NEW_PW\nEOF\n",
        "cat <<EOF > notes.txt\nalice:not-a-password\nEOF\n",
        "echo 'alice:x' > /tmp/users.txt",
        "yes | apt-get install nginx",
        "yes n | rm -i old/*",
        "(echo hello; echo world) | grep passwd",
        "(echo hello; ls) | passwd alice",
    ),
)
