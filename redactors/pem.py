"""Private keys over many lines: a BEGIN/END state machine, not one greedy regex.

A regex from BEGIN to END merges two keys into one finding (gitleaks #1062),
misses a body whose END never arrived (a cut log), and cannot follow a key
that was logged line by line with a syslog prefix on every line. This scanner
walks lines instead: a body line is whatever follows the BEGIN line's own
prefix (YAML indentation, a log prefix), or the last field of the line, as
long as it is base64 or an armor header. It stops at END, or at the first
line that is not body (truncated key). A key inside one line (JSON ``\\n``
escapes, at any depth) is matched inline. BEGIN/END lines are kept, so a
reader still sees "a private key was here"; every body line gets the same
token. An END without its BEGIN (a log that starts mid-key) redacts the body
lines above it.
"""

from __future__ import annotations

import re
from collections.abc import Generator, Iterator

from .rules import Hit, View, runs_past_view

_LABEL = rb"(?:[A-Z0-9 ]{0,40}?PRIVATE KEY(?: BLOCK)?|OpenVPN Static key V1)"
"""What a secret armor block is called: a private key of any flavour, or OpenVPN's
``tls-auth``/``secret`` static key (hex lines, a shared key as secret as a private one)."""
BEGIN_RE = re.compile(rb"-----BEGIN " + _LABEL + rb"-----")
END_RE = re.compile(rb"-----END " + _LABEL + rb"-----")
INLINE_BODY_RE = re.compile(
    rb"(?:[A-Za-z0-9+/=\\ \t:,._()]|-(?!----)){16,16384}?(?=-----END |[\"'<>\r\n]|\Z)"
)
"""A body on the BEGIN line itself (JSON ``\\n`` escapes, a key pasted with spaces): it never
runs over a real line break, and never takes an END marker for body."""
_REAL_BODY_RE = re.compile(rb"[A-Za-z0-9+/]{16}")
_BODY_RE = re.compile(
    rb"[A-Za-z0-9+/=]+|(?:Proc-Type|DEK-Info|Comment|Version|Hash|Charset|MessageID): .*|"
)
_MARKER_RE = re.compile(rb"PRIVATE KEY|OpenVPN Static key")
_PUTTY_RE = re.compile(rb"Private-Lines: *([0-9]{1,3})")
KIND = "private-key"
RULE = "private-key"


def _lines_from(data: bytes, pos: int) -> Iterator[tuple[int, int]]:
    """(start, end) of each line from ``pos``; end excludes the newline."""
    while pos < len(data):
        nl = data.find(b"\n", pos)
        end = len(data) if nl < 0 else nl
        yield pos, end
        pos = end + 1


def _body_part(line: bytes, prefix: bytes) -> tuple[int, bytes] | None:
    """Offset and text of the key material in ``line``, or None if it is not a body line."""
    text = line.rstrip(b"\r")
    if prefix and text.startswith(prefix):
        offset = len(prefix)
    elif prefix.strip() == b"" and text[: len(prefix)].strip() == b"":
        offset = len(text) - len(text.lstrip())
    else:
        fields = text.rsplit(None, 1)
        offset = len(text) - len(fields[-1]) if fields else len(text)
    part = text[offset:].strip()
    if not _BODY_RE.fullmatch(part):
        return None
    return offset + (len(text[offset:]) - len(text[offset:].lstrip())), part


def scan_pem(view: View) -> Iterator[Hit]:
    data = view.data
    consumed_to = 0
    for marker in _MARKER_RE.finditer(data):
        if marker.start() < consumed_to:
            continue
        start = data.rfind(b"-----", max(0, marker.start() - 60), marker.start())
        if start < 0:
            continue
        begin = BEGIN_RE.match(data, start)
        if begin is not None:
            consumed_to = yield from _block(view, begin)
            continue
        if END_RE.match(data, start):
            yield from _orphan_end(view, start)
            consumed_to = marker.end()
    if b"PuTTY-User-Key-File" in data:
        yield from _putty(view)


def _block(view: View, begin: re.Match[bytes]) -> Generator[Hit, None, int]:
    """Hits for one BEGIN block; returns the offset scanning resumes from."""
    data = view.data
    line_start = data.rfind(b"\n", 0, begin.start()) + 1
    line_end = data.find(b"\n", begin.end())
    line_end = len(data) if line_end < 0 else line_end
    rest = data[begin.end() : line_end].strip(b" \t\r\"',")
    if rest:  # the body follows on the same line: escaped newlines
        body = INLINE_BODY_RE.match(data, begin.end())
        if body is None or not _REAL_BODY_RE.search(data, body.start(), body.end()):
            return begin.end()  # "-----BEGIN ... KEY----------END ... KEY-----": no key here
        if runs_past_view(view, body.end(), begin.start()):
            return len(data)
        yield Hit(body.start(), body.end(), KIND, RULE)
        return body.end()
    prefix = data[line_start : begin.start()]
    spans: list[tuple[int, int]] = []
    end_at = None
    for start, end in _lines_from(data, line_end + 1):
        if END_RE.search(data, start, end):
            end_at = end
            break
        part = _body_part(data[start:end], prefix)
        if part is None:
            end_at = start
            break
        offset, text = part
        if text:
            spans.append((start + offset, start + offset + len(text)))
    else:
        if not view.final:
            view.need_more_from(begin.start())
            return len(data)
        end_at = len(data)
    identity = b"".join(data[a:b] for a, b in spans)
    for start, end in spans:
        yield Hit(start, end, KIND, RULE, identity=identity)
    return end_at


def _orphan_end(view: View, end_pos: int) -> Iterator[Hit]:
    """Body lines above an END whose BEGIN is not in this text."""
    data = view.data
    cursor = data.rfind(b"\n", 0, end_pos)
    spans: list[tuple[int, int]] = []
    while cursor > 0:
        start = data.rfind(b"\n", 0, cursor) + 1
        part = _body_part(data[start:cursor], b"")
        if part is None or not part[1] or (len(part[1]) < 16 and not spans):
            break
        spans.append((start + part[0], start + part[0] + len(part[1])))
        cursor = start - 1
    identity = b"".join(data[a:b] for a, b in reversed(spans))
    for start, end in spans:
        yield Hit(start, end, KIND, RULE, identity=identity)


def _putty(view: View) -> Iterator[Hit]:
    data = view.data
    for found in _PUTTY_RE.finditer(data):
        count = int(found.group(1))
        spans = []
        lines = _lines_from(data, data.find(b"\n", found.end()) + 1)
        for _, (start, end) in zip(range(count), lines, strict=False):
            text = data[start:end].strip()
            spans.append((start, start + len(text)))
        mac = re.compile(rb"Private-MAC: *([0-9a-fA-F]+)").search(data, found.end())
        if mac:
            spans.append(mac.span(1))
        identity = b"".join(data[a:b] for a, b in spans)
        for start, end in spans:
            yield Hit(start, end, "putty-private-key", "putty-private-key", identity=identity)
