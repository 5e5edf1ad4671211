"""``chpasswd``'s input where the command line does not hold it: a file, the terminal, cloud-init.

``chpasswd`` reads ``user:password`` lines from its standard input. Written on its own
command line (``echo 'alice:PW' | chpasswd``, a here-document) they are :mod:`.stdin`'s.
Elsewhere such a line looks like any ``key:value`` or ``host:port`` line, so it is taken
only where the text says it is ``chpasswd``'s input:

* ``cat FILE | chpasswd`` and ``chpasswd < FILE``: where the same text shows that file's
  lines, printed (``cat|head|tail|more|less FILE``: the ``user:password`` lines right after
  that command) or written (``echo|printf 'alice:PW' >[>] FILE``, a here-document into
  ``cat > FILE`` or ``tee FILE``); the file is known by its name, with or without its
  directory;
* ``chpasswd`` alone, reading the terminal (``# chpasswd`` in a session log): the
  ``user:password`` lines typed after it;
* cloud-init's ``chpasswd:`` section: the lines of its ``list:`` (a block or a list).

A ``user:password`` line is a login name, a colon and the rest of the line: only what
follows the colon goes. Lines are read while they have that shape, at most
:data:`INPUT_LINES` of them; the text shown must be in the same text as the command (for a
large file, the same megabyte or so: each is read as a window).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from ..rules import Hit, Rule, View
from .shellwords import (
    Word,
    after_prompt,
    command_at,
    is_reference,
    line_end,
    name,
    segment_start,
    words,
)

__all__ = ["CHPASSWD_INPUT", "INPUT_LINES"]

INPUT_LINES = 64
"""The most ``user:password`` lines read after a command that shows or types them."""
_USER_LINE = re.compile(rb"[ \t]*(?:-[ \t]+)?[\"']?[a-z_][a-z0-9_.-]{0,31}\$?:(?=[^ \t\r\n])")
"""The head of a ``user:password`` line, up to its colon (a YAML list item's dash too)."""
_WRAPPERS = frozenset({b"sudo", b"doas", b"env", b"command", b"exec", b"nohup", b"time"})
_VALUED = frozenset({b"-c", b"-s", b"-R", b"-P", b"--crypt-method", b"--sha-rounds"})
"""chpasswd's options that take a value (``-c SHA512``, ``-R /chroot``)."""
_PRINTERS = frozenset({b"cat", b"head", b"tail", b"more", b"less", b"bat", b"tac"})
_WRITERS = frozenset({b"echo", b"printf"})
_HEREDOC = re.compile(rb"<<-?[ \t]*([\"']?)([A-Za-z0-9_.-]+)\1")
_CLOUD_LIST = re.compile(rb"[ \t]+list:[ \t]*(?:\|[-+]?)?[ \t]*\r?")
_REDIRECT = re.compile(rb">>?[ \t]*([^ \t\r\n;|&<>]+)")
_SCAN_MAX = 1 << 20
"""How far around a ``chpasswd`` its input file's lines are looked for."""


def _user_lines(view: View, pos: int, rule: Rule, limit: int = INPUT_LINES) -> Iterator[Hit]:
    """The passwords of the ``user:password`` lines from ``pos`` (a line start) on, while
    they have that shape."""
    data = view.data
    for _ in range(limit):
        head = _USER_LINE.match(data, pos)
        if head is None:
            return
        end = data.find(b"\n", pos)
        if end < 0:
            if not view.final:
                view.need_more_from(pos)
                return
            end = len(data)
        value = data[head.end() : end].rstrip(b" \t\r\"'")
        if value and not is_reference(value, b""):
            yield Hit(head.end(), head.end() + len(value), rule.kind, rule.id)
        pos = end + 1


def _command(data: bytes, before: list[Word], args: list[Word]) -> bool:
    """Whether ``chpasswd`` is run here: only wrappers before it, only options after it
    (``# chpasswd input`` is prose)."""
    if any(name(data, w) not in _WRAPPERS and not w.text(data).startswith(b"-") for w in before):
        return False
    valued = False
    for word in args:
        text = word.text(data)
        if valued:
            valued = False
        elif text.startswith(b"-"):
            valued = text in _VALUED
        else:
            return False
    return True


def _source(data: bytes, seg: int, end: int, after: int) -> tuple[str, list[bytes]]:
    """Where chpasswd's input comes from: ("files", names), ("terminal", []), or ("", [])
    when the command line holds it (the stdin rule's) or another command makes it."""
    rest = data[after:end]
    if b"<<" in rest:
        return "", []
    redirect = rest.find(b"<")
    if redirect >= 0:
        target = next(words(data, after + redirect + 1, end), None)
        return ("files", [_base(target.value(data))]) if target is not None else ("", [])
    if seg > 1 and data[seg - 1] == 0x7C and data[seg - 2] != 0x7C:  # "|", not "||"
        producer = after_prompt(data, list(words(data, segment_start(data, seg - 1), seg - 1)))
        if producer and name(data, producer[0]) == b"cat":
            files = [_base(w.value(data)) for w in producer[1:] if not _option(data, w)]
            return ("files", files) if files else ("", [])
        return "", []
    if not rest.strip(b" \t\r"):
        return "terminal", []
    return "", []


def _option(data: bytes, word: Word) -> bool:
    return word.text(data).startswith(b"-")


def _base(path: bytes) -> bytes:
    return path[path.rfind(b"/") + 1 :]


def _file_lines(view: View, files: list[bytes], around: int, rule: Rule) -> Iterator[Hit]:
    """Where the text shows or writes one of ``files``: the passwords there."""
    data = view.data
    low, high = max(0, around - _SCAN_MAX), min(len(data), around + _SCAN_MAX)
    for file in set(files):
        if not file:
            continue
        at = data.find(file, low, high)
        for _ in range(INPUT_LINES):
            if at < 0:
                break
            line_start = data.rfind(b"\n", 0, at) + 1
            yield from _shown_or_written(view, line_start, file, rule)
            next_line = data.find(b"\n", at)
            at = data.find(file, next_line, high) if next_line >= 0 else -1


def _shown_or_written(view: View, line_start: int, file: bytes, rule: Rule) -> Iterator[Hit]:
    """``cat FILE`` (the lines after it), ``echo 'u:PW' > FILE``, ``cat > FILE <<EOF``."""
    data = view.data
    end = data.find(b"\n", line_start)
    end = len(data) if end < 0 else end
    args = after_prompt(data, list(words(data, line_start, end)))
    while args and name(data, args[0]) in _WRAPPERS:
        args = args[1:]
    if not args:
        return
    command = name(data, args[0])
    if command in _PRINTERS and data[args[-1].end : end].strip(b" \t\r") == b"":
        if any(_base(w.value(data)) == file for w in args[1:]):
            yield from _user_lines(view, end + 1, rule)
        return
    target = _REDIRECT.search(data, args[-1].end, end)
    writes = target is not None and _base(target.group(1)) == file
    if command == b"tee":
        writes = any(_base(w.value(data)) == file for w in args[1:] if not _option(data, w))
    if not writes:
        return
    heredoc = _HEREDOC.search(data, line_start, end)
    if heredoc is not None and command in (b"cat", b"tee"):
        yield from _heredoc_lines(view, end + 1, heredoc.group(2), rule)
    elif command in _WRITERS:
        values = [w for w in args[1:] if not _option(data, w)]
        if command == b"printf" and len(values) > 1:
            values = values[1:]  # the format, then its arguments
        for word in values:
            for piece in _pieces(data, word):
                yield from _user_lines(view, piece, rule, 1)


def _pieces(data: bytes, word: Word) -> Iterator[int]:
    """Where each ``\\n``-separated line of an echo/printf argument starts."""
    start = word.value_start
    while start < word.value_end:
        yield start
        cut = data.find(b"\\n", start, word.value_end)
        if cut < 0:
            return
        start = cut + 2


def _heredoc_lines(view: View, pos: int, delimiter: bytes, rule: Rule) -> Iterator[Hit]:
    data = view.data
    for _ in range(INPUT_LINES):
        if pos >= len(data):
            return
        end = data.find(b"\n", pos)
        end = len(data) if end < 0 else end
        if data[pos:end].strip() == delimiter:
            return
        yield from _user_lines(view, pos, rule, 1)
        pos = end + 1


def _cloud_init(view: View, key_line_end: int, rule: Rule) -> Iterator[Hit]:
    """cloud-init's ``chpasswd:`` section: the ``user:password`` lines of its ``list:``."""
    data = view.data
    pos = key_line_end + 1
    for _ in range(INPUT_LINES):
        if data[pos : pos + 1] not in (b" ", b"\t"):
            return  # the section ended
        end = data.find(b"\n", pos)
        end = len(data) if end < 0 else end
        if _CLOUD_LIST.fullmatch(data, pos, end):
            yield from _user_lines(view, end + 1, rule)
            return
        pos = end + 1


def _chpasswd(view: View, match: re.Match[bytes], rule: Rule) -> Iterable[Hit]:
    data = view.data
    at, after = match.start(), match.end()
    if not command_at(data, at):
        return
    line_start = data.rfind(b"\n", 0, at) + 1
    if data[after : after + 1] == b":" and not data[line_start:at].strip(b" \t"):
        key_line_end = data.find(b"\n", after)
        if key_line_end >= 0 and not data[after + 1 : key_line_end].strip():
            yield from _cloud_init(view, key_line_end, rule)
        return
    if after < len(data) and data[after] not in b" \t\r\n\0;|&)":
        return  # chpasswd.c, chpasswd:
    end = line_end(view, after, at)
    if end is None:
        return
    seg = segment_start(data, at)
    before = after_prompt(data, list(words(data, seg, at)))
    if not _command(data, before, list(words(data, after, end))):
        return
    source, files = _source(data, seg, end, after)
    if source == "terminal" and end < len(data):
        yield from _user_lines(view, end + 1, rule)
    elif source == "files":
        yield from _file_lines(view, files, at, rule)


CHPASSWD_INPUT = Rule(
    "chpasswd-input",
    "password",
    "cli",
    "`user:password` lines chpasswd reads where its command line does not hold them: a file"
    " fed to it (`cat F | chpasswd`, `chpasswd < F`) shown or written in the same text, the"
    " lines typed after a `chpasswd` reading the terminal, the list of cloud-init's chpasswd"
    " section.",
    rb"chpasswd",
    lower=True,
    handler=_chpasswd,
    examples=(
        ("$ cat users.txt\nalice:S3cr3tPass\n$ cat users.txt | chpasswd\n", "S3cr3tPass"),
        ("# chpasswd\nalice:typedhorse\n^D\n", "typedhorse"),
        ("echo 'bob:echohorse' >> /root/new.txt\nchpasswd < /root/new.txt\n", "echohorse"),
        ("chpasswd:\n  list: |\n    root:cloudhorse\n  expire: false\n", "cloudhorse"),
    ),
    decoys=(
        "# chpasswd input\nalice:notapassword\n",
        "$ cat hosts.txt\nweb:8080\n$ cat users.txt | chpasswd\n",
        "man chpasswd\nusage:shown\n",
        "echo 'alice:x1' > /tmp/notes.txt\ncat users.txt | sudo chpasswd\n",
    ),
)
