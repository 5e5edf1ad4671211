"""Decode and rescan: secrets hidden under percent-, JSON-, HTML-, base64- and hex-encoding.

Two families, because they map back differently:

* *Escapes* (``%40``, ``\\u0022``, ``&quot;``) decode character by character,
  so a secret found in the decoded text maps back to the exact encoded bytes
  (each decoded byte remembers the source span it came from) and only those
  bytes are replaced.
* *Blocks* (base64, hex) do not map byte for byte, so when the decoded text
  holds a secret the whole encoded run is replaced.

Candidates are found cheaply in the raw text at depth 0 (a literal anchor:
``%3A``, ``\\u00``, ``&quot;``, ``\\x1b[``, ``LS0tLS1CRUdJTi`` (base64 of
``-----BEGIN``), ``H4sI`` (of a gzip header), ``eJy`` and its kin (of a zlib header, at a
run's start); ``eyJ``, base64 of ``{"``, is
found by the JWT rule, which hands non-JWTs back here); inside decoded text,
which is small, every base64 or hex run is tried. Depth is bounded
(``max_depth``).
"""

from __future__ import annotations

import base64
import binascii
import re
import weakref
import zlib
from bisect import bisect_right
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from itertools import accumulate, compress, repeat
from operator import and_, methodcaller
from typing import Protocol

from .prefilter import PROBE_MAX, places
from .rules import Hit, View, runs_past_view
from .values import TERMINAL_ESCAPE

Scan = Callable[[View, int], list[Hit]]

_B64_CHARS = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=_-")
_SEGMENT_STOP = frozenset(b" \t\r\n\0\"'<>`")
_SEGMENT_STOP_B64 = frozenset(range(256)) - _B64_CHARS
_ESCAPE_RE = re.compile(rb"\\(?:u([0-9a-fA-F]{4})|x([0-9a-fA-F]{2})|([\"\\/bfnrt']))")
_PERCENT_RE = re.compile(rb"%([0-9a-fA-F]{2})")
_ENTITY_RE = re.compile(rb"&(?:(quot|amp|lt|gt|apos)|#([0-9]{1,7})|#[xX]([0-9a-fA-F]{1,6}));")
_ANSI_RE = TERMINAL_ESCAPE
_CONFUSABLE_RE = re.compile(rb"\xe2\x80[\x8b-\x8d]|\xef\xbb\xbf|\xe2\x81\xa0|[\xd0\xd1][\x80-\xbf]")
_HOMOGLYPHS = {
    "а": b"a", "е": b"e", "о": b"o", "р": b"p", "с": b"c", "у": b"y", "х": b"x", "і": b"i",
    "ј": b"j", "ѕ": b"s", "А": b"A", "В": b"B", "Е": b"E", "К": b"K", "М": b"M", "Н": b"H",
    "О": b"O", "Р": b"P", "С": b"C", "Т": b"T", "Х": b"X", "ԁ": b"d",
}  # fmt: skip
_ENTITIES = {b"quot": b'"', b"amp": b"&", b"lt": b"<", b"gt": b">", b"apos": b"'"}
_SIMPLE = {b"b": b"\b", b"f": b"\f", b"n": b"\n", b"r": b"\r", b"t": b"\t"}
_DEEP_B64_RE = re.compile(rb"[A-Za-z0-9+/_-]{16,}={0,2}")
_DEEP_HEX_RE = re.compile(rb"(?:[0-9a-fA-F]{2}){12,}")
MAX_BLOCK = 1 << 20
_B64_RUN_FROM = re.compile(rb"[A-Za-z0-9+/_-]{0,%d}={0,2}" % (MAX_BLOCK + 1))
"""A base64 run from where it starts (one byte past :data:`MAX_BLOCK`: a longer one is not
decoded, and is not walked to its end either)."""
CACHE_TEXT_MAX = 4096
"""Blocks up to this size have their rescan result cached (cursors, ids, small payloads)."""
CACHE_ENTRIES = 4096
"""The cache is emptied when it holds this many blocks (at most ~16 MiB of keys)."""
_HEX_DIGITS = b"0123456789abcdefABCDEF"
_URLSAFE = bytes.maketrans(b"-_", b"+/")
_PRINTABLE = bytes(range(32, 127)) + b"\t\n\r"
_UNPRINTABLE_MARKS = bytes(0 if byte in _PRINTABLE else 1 for byte in range(256))
"""``translate`` table: 1 where ``_printable`` counts a byte as not text, else 0."""
_B64_ALPHABET = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/_-"
_GROUP = methodcaller("group")
_START = methodcaller("start")
_PART_RE = re.compile(rb"eyJ[A-Za-z0-9_+/-]{4,}+={0,2}+")
"""What the ``jwt`` rule hands back here when it is not a JWT: a cursor (the rule's pattern
without the dots), or a part of a JWT-shaped token with no JOSE header (tracing baggage),
which is followed by a dot (possessive, so a part is never matched short of its end)."""
PROVE_MIN = 8
"""A view proves its cursors together only when it holds at least this many."""
_BlockFinding = tuple[str, str, str, tuple[str, ...], tuple[bytes, ...]]
"""(kind, rule, via, decoders, extra) of the hit a decoded block gives."""


def b64_signatures(word: bytes) -> list[bytes]:
    """The parts of base64(x + word + y) that do not depend on x or y, for each alignment
    (``word`` at an offset of 0, 1 or 2 modulo 3 in the encoded text); those of 4 or more
    characters."""
    sigs = []
    for shift in range(3):
        encoded = base64.b64encode(b"\0" * shift + word + b"\0\0")
        first = (shift * 8 + 5) // 6 + (1 if shift else 0)
        last = ((shift + len(word)) * 8) // 6
        sigs.append(encoded[first:last])
    return [s for s in sigs if len(s) >= 4]


ESCAPE_ANCHORS: tuple[tuple[str, bytes], ...] = (
    ("ansi", rb"\x1b\["),
    ("confusable", rb"\xe2\x80[\x8b-\x8d]|\xef\xbb\xbf|\xe2\x81\xa0|[\xd0\xd1][\x80-\xbf]"),
    ("json-escape", rb"\\u00"),
    ("html-entity", rb"&(?:quot|#[0-9]{2,3}|#x[0-9a-fA-F]{2});"),
    ("percent", rb"%(?:3[AaDd]|40)"),
)
CONFUSABLE_STARTS = (
    b"\xe2\x80\x8b",
    b"\xe2\x80\x8c",
    b"\xe2\x80\x8d",
    b"\xef\xbb\xbf",
    b"\xe2\x81\xa0",
    b"\xd0",
    b"\xd1",
)
"""Where a match of the ``confusable`` anchor can begin (its alternatives' first bytes)."""
_CONFUSABLE_TELLS = tuple((start, start[-1:]) for start in CONFUSABLE_STARTS)
"""Each start with its last byte: text without that byte (one ``memchr``) cannot hold the start.
An em dash (``\xe2\x80\x94``) shares two bytes with the zero-width spaces, and searching
for those in a log with one on every line cost 3 ms per MiB; their last bytes are rare."""
BLOCK_ANCHORS: tuple[bytes, ...] = (b"LS0tLS1CRUdJTi", b"H4sI")
"""``eyJ`` (base64 JSON) is found by the JWT rule's pass; deeper layers try every run."""
ZLIB_HEADS = (b"\x78\x01", b"\x78\x5e", b"\x78\x9c", b"\x78\xda")
"""The two bytes a zlib stream starts with at each compression level zlib writes (1, 2-5, 6
and 7-9): what ``zlib.compress`` gives Flask's session cookie, Java's ``Deflater`` and Go's
``compress/zlib``. Another header (a preset dictionary, a smaller window) is not read."""
ZLIB_ANCHORS: tuple[bytes, ...] = tuple(
    sorted(
        {base64.b64encode(head + bytes([third]))[:3] for head in ZLIB_HEADS for third in range(256)}
    )
)
"""How base64 of a zlib stream begins (``eJy…``; the same in the URL-safe alphabet): 16
three-letter anchors, taken only where a base64 run starts (:func:`_zlib_runs`). Unlike
``H4sI`` they are short enough to occur inside any long run by chance."""
(ZLIB_ANCHOR_LENGTH,) = {len(anchor) for anchor in ZLIB_ANCHORS}
"""Every zlib anchor's length, the one they share (the accelerator reports where a literal
ends)."""


def _decode_escapes(kind: str, text: bytes) -> tuple[bytes, list[int], list[int]]:
    """Decoded bytes and, per decoded byte, the start and end of its source in ``text``."""
    regex = _REGEXES[kind]
    out = bytearray()
    starts: list[int] = []
    ends: list[int] = []
    pos = 0
    for found in regex.finditer(text):
        for i in range(pos, found.start()):
            out.append(text[i])
            starts.append(i)
            ends.append(i + 1)
        piece = _escape_value(kind, found)
        out += piece
        starts.extend([found.start()] * len(piece))
        ends.extend([found.end()] * len(piece))
        pos = found.end()
    for i in range(pos, len(text)):
        out.append(text[i])
        starts.append(i)
        ends.append(i + 1)
    return bytes(out), starts, ends


def _fast_decode(kind: str, text: bytes) -> bytes | None:
    """The decoded text without the offset map (built only when a secret is found)."""
    regex = _REGEXES[kind]
    try:
        return regex.sub(lambda m: _escape_value(kind, m), text)
    except (ValueError, UnicodeEncodeError):
        return None


def _escape_value(kind: str, found: re.Match[bytes]) -> bytes:
    if kind == "ansi":
        return b""
    if kind == "confusable":
        text = found.group().decode("utf-8", "replace")
        return _HOMOGLYPHS.get(
            text, b"" if text in "\u200b\u200c\u200d\ufeff\u2060" else found.group()
        )
    if kind == "percent":
        return bytes([int(found.group(1), 16)])
    if kind == "html-entity":
        name, dec, hexa = found.groups()
        if name:
            return _ENTITIES[name]
        return chr(min(int(dec or hexa, 10 if dec else 16), 0x10FFFF)).encode("utf-8", "replace")
    code, byte, simple = found.groups()
    if code:
        return chr(int(code, 16)).encode("utf-8", "surrogatepass")
    if byte:
        return bytes([int(byte, 16)])
    return _SIMPLE.get(simple, simple)


_REGEXES = {
    "json-escape": _ESCAPE_RE,
    "percent": _PERCENT_RE,
    "html-entity": _ENTITY_RE,
    "ansi": _ANSI_RE,
    "confusable": _CONFUSABLE_RE,
}


def _around_escapes(data: bytes, hit: Hit) -> list[Hit]:
    """``hit``, found in text with its terminal escapes taken out, as the pieces between the
    escapes it spans (``\\x1b[31mhunter2\\x1b[0m rest``: ``hunter2`` and ``rest``), each given
    the token of the whole value. The escapes decoded to nothing, so they are no part of
    the secret, and they stay: how the text was shown is evidence."""
    pieces: list[Hit] = []
    cursor = hit.start
    for escape in (*_ANSI_RE.finditer(data, hit.start, hit.end), None):
        stop = hit.end if escape is None else escape.start()
        text = data[cursor:stop]
        lead = len(text) - len(text.lstrip(b" \t"))
        trail = len(text) - len(text.rstrip(b" \t"))
        if stop - trail > cursor + lead:
            pieces.append(replace(hit, start=cursor + lead, end=stop - trail))
        cursor = hit.end if escape is None else escape.end()
    if len(pieces) == 1 and (pieces[0].start, pieces[0].end) == (hit.start, hit.end):
        return [hit]
    identity = hit.extra[0] if hit.extra else data[hit.start : hit.end]
    return [replace(piece, identity=identity) for piece in pieces]


def _segment(data: bytes, pos: int, stop: frozenset[int]) -> tuple[int, int]:
    start = pos
    while start > 0 and data[start - 1] not in stop and pos - start < 65536:
        start -= 1
    end = pos
    while end < len(data) and data[end] not in stop and end - pos < 65536:
        end += 1
    return start, end


def _zlib_runs(data: bytes, starts: list[int] | None) -> Iterator[tuple[int, int]]:
    """The spans of the base64 runs of ``data`` that begin like a zlib stream
    (:data:`ZLIB_ANCHORS`), from where the anchor index found the anchors (``starts``) or,
    without one, ``bytes.find`` per anchor (a regular expression without one literal
    prefix would try every ``e`` of the text)."""
    if starts is None:
        starts = sorted(at for anchor in ZLIB_ANCHORS for at in places(data, anchor))
    for at in starts:
        if at == 0 or data[at - 1] in _SEGMENT_STOP_B64:
            yield at, _B64_RUN_FROM.match(data, at).end()  # type: ignore[union-attr]


def _line(data: bytes, pos: int) -> tuple[int, int]:
    start = data.rfind(b"\n", 0, pos) + 1
    end = data.find(b"\n", pos)
    return start, len(data) if end < 0 else end


class Prover(Protocol):
    """What proving many decoded texts at once needs (:class:`~redactors.prefilter.Probe`)."""

    def may_hit_many(self, datas: Sequence[bytes], depth: int) -> list[bool]: ...


class Decoders:
    """Finds encoded candidates in a view, decodes them and rescans with ``scan``."""

    def __init__(self, scan: Scan, max_depth: int = 3, *, cache: bool = False) -> None:
        self._scan = scan
        self.max_depth = max_depth
        self._cache: dict[tuple[bytes, int], _BlockFinding | None] | None = {} if cache else None
        self.prover: Prover | None = None
        """Set by the engine when its scans are probed: then the cursors of a view are
        proven harmless together, before the ``jwt`` rule hands them over one by one."""
        self._proof: tuple[weakref.ref[View], frozenset[bytes], frozenset[int]] | None = None
        """The last view proven (weakly: its megabyte is not kept), its harmless cursor texts
        and where they begin: one tuple, replaced whole, because doctor's collectors
        redact from several threads through one engine; a thread reads it once and gets
        a view's texts with that view's starts, never another's."""
        self._escape = [(kind, re.compile(anchor)) for kind, anchor in ESCAPE_ANCHORS]
        self._blocks = [re.compile(re.escape(anchor)) for anchor in BLOCK_ANCHORS]

    def hits(self, view: View, depth: int) -> Iterator[Hit]:
        if depth >= self.max_depth:
            return
        data = view.data
        ascii_only = data.isascii()  # word-at-a-time in C: skips the Unicode decoder on plain logs
        markers = view.markers  # with the accelerator: which anchors occur at all
        for kind, regex in self._escape:
            if markers is not None and kind not in markers:
                continue
            begin = 0
            if kind == "confusable":
                if ascii_only:
                    continue
                # The pattern has no literal prefix, so ``re`` would try every byte (10 ms per
                # MiB of text with one em dash); it can only start at one of these.
                begin = min(
                    (
                        p
                        for s, tell in _CONFUSABLE_TELLS
                        if tell in data and (p := data.find(s)) >= 0
                    ),
                    default=-1,
                )
                if begin < 0:
                    continue
            done = -1
            for found in regex.finditer(data, begin):
                if found.start() < done:
                    continue
                if kind == "percent":
                    start, end = _segment(data, found.start(), _SEGMENT_STOP)
                else:
                    start, end = _line(data, found.start())
                done = end
                yield from self._escaped(view, kind, start, end, depth)
        runs: set[tuple[int, int]] = set()
        if depth == 0:
            if markers is None or "block" in markers:
                for regex in self._blocks:
                    for found in regex.finditer(data):
                        runs.add(_segment(data, found.start(), _SEGMENT_STOP_B64))
            if markers is None or "zlib" in markers:
                runs.update(_zlib_runs(data, view.zlib_starts if markers is not None else None))
        else:
            runs.update(deep_runs(data))
        for start, end in sorted(runs):
            if runs_past_view(view, end, start):
                continue
            hit = self._block(view, start, end, depth)
            if hit is not None:
                yield hit

    def _escaped(self, view: View, kind: str, start: int, end: int, depth: int) -> Iterator[Hit]:
        segment = view.data[start:end]
        decoded = _fast_decode(kind, segment)
        if decoded is None or decoded == segment:
            return
        found = self._scan(View(decoded), depth + 1)
        if not found:
            return
        decoded, starts, ends = _decode_escapes(kind, segment)
        for hit in self._scan(View(decoded), depth + 1):
            src_start = start + starts[hit.start]
            src_end = start + ends[hit.end - 1]
            mapped = Hit(
                src_start,
                src_end,
                hit.kind,
                hit.rule,
                via=hit.via,
                decoders=(kind, *hit.decoders),
                extra=(decoded[hit.start : hit.end], *hit.extra),
            )
            yield from (_around_escapes(view.data, mapped) if kind == "ansi" else (mapped,))

    def block(self, view: View, start: int, end: int, depth: int) -> list[Hit]:
        """Decode ``view.data[start:end]`` (base64, hex, gzip inside) and rescan it."""
        hit = self._block(view, start, end, depth)
        return [] if hit is None else [hit]

    def _block(self, view: View, start: int, end: int, depth: int) -> Hit | None:
        """The hit for the whole block, if its decoded text holds a secret (a plain call:
        the ``jwt`` rule asks this for every cursor of a log)."""
        if end - start > MAX_BLOCK:
            return None
        text = view.data[start:end].rstrip(b"=").strip(b"-_")
        if len(text) < 12:
            return None
        if depth == 0 and self.prover is not None and text in self._proven_in(view):
            return None
        found = self._found_in_block(text, depth)
        if found is None:
            return None
        kind, rule, via, decoders, extra = found
        return Hit(start, end, kind, rule, via=via, decoders=decoders, extra=extra)

    def _found_in_block(self, text: bytes, depth: int) -> _BlockFinding | None:
        """What rescanning the decoded ``text`` finds, as the block's hit needs it.

        Depends on the text and the depth alone (an engine whose rules keep
        state gets no cache), so a run seen before in this process, such as a
        cursor a log repeats on every page request, is decoded and scanned once.
        """
        cache = self._cache
        key = (text, depth)
        if cache is not None and key in cache:
            return cache[key]
        name, decoded = _decode_block(text)
        found = None
        if decoded is not None:
            inner = self._scan(View(decoded), depth + 1)
            if inner:
                values = tuple(decoded[h.start : h.end] for h in inner)
                first = inner[0]
                found = (
                    first.kind,
                    first.rule,
                    first.via,
                    (name, *first.decoders),
                    tuple(v for v in values if len(v) >= 4),
                )
        if cache is not None and len(text) <= CACHE_TEXT_MAX:
            if len(cache) >= CACHE_ENTRIES:
                cache.clear()
            cache[key] = found
        return found

    def _proven_in(self, view: View) -> frozenset[bytes]:
        """The ``eyJ`` blocks of ``view`` (depth 0) that rescanning would find nothing in.

        Proven for the whole view at the first block asked about: every cursor
        decoded together (:func:`decode_blocks`), what they decode to probed
        together (:meth:`~redactors.prefilter.Probe.may_hit_many`); one by one, a
        cursor costs about 9 us of Python calls. Exact: a block is in the set
        only when :meth:`_found_in_block` would return None for it, a fact about
        the text alone, so the set stays true after its view. (Deeper, the runs
        inside a decoded block are few per view and mostly in the block cache:
        proving them together measured no faster.)
        """
        return self._proof_of(view)[1]

    def proven_starts(self, view: View) -> frozenset[int]:
        """Where in ``view`` (depth 0) a proven cursor begins: the ``jwt`` rule need not even
        match there (:func:`~redactors.catalog.tokens.unproven_cursors`). A cursor that
        ends at the end of a view with more text to come is left out: the rule asks for
        that text to be kept for the next view, and must still be asked."""
        return self._proof_of(view)[2]

    def _proof_of(self, view: View) -> tuple[weakref.ref[View], frozenset[bytes], frozenset[int]]:
        proof = self._proof
        if proof is not None and proof[0]() is view:
            return proof
        return self._prove(view)

    def _prove(self, view: View) -> tuple[weakref.ref[View], frozenset[bytes], frozenset[int]]:
        data = view.data
        matches = list(_PART_RE.finditer(data))
        # What the jwt rule would hand over for each (padding and URL-safe ends stripped), in
        # C-level maps: a Python step per cursor was a fifth of the proof.
        texts = list(
            map(
                bytes.strip,
                map(bytes.rstrip, map(_GROUP, matches), repeat(b"=")),
                repeat(b"-_"),
            )
        )
        ordered = [text for text in set(texts) if 12 <= len(text) <= MAX_BLOCK]
        proven: frozenset[bytes] = frozenset()
        if len(ordered) >= PROVE_MIN and self.prover is not None:
            decoded = decode_blocks(ordered)
            probed = [d for d in decoded if d is not None and len(d) <= PROBE_MAX]
            maybe = iter(self.prover.may_hit_many(probed, 1))
            proven = frozenset(
                text
                for text, plain in zip(ordered, decoded, strict=True)
                if plain is None or (len(plain) <= PROBE_MAX and not next(maybe))
            )
        # a cursor's start lets the rule skip it; a part before a dot never does (the token
        # it opens may be a JWT, which the rule must see), its text is only proven
        cursors = [data[m.end() : m.end() + 1] != b"." for m in matches]
        starts = set(
            compress(
                map(_START, matches),
                map(and_, map(proven.__contains__, texts), cursors),
            )
        )
        if matches and not view.final and matches[-1].end() == len(data):
            starts.discard(matches[-1].start())  # the rule asks for more text: it must see it
        proof = self._proof = (weakref.ref(view), proven, frozenset(starts))
        return proof

    def runs_decode_many(self, datas: Sequence[bytes]) -> list[bool]:
        """``[self.runs_decode(d) for d in datas]``, with the runs of all of them decoded together.

        The runs that decode to text (:func:`decode_blocks`) are looked up in every
        text that holds them, so a text is "no" only when none of its runs decodes.
        """
        if not datas:
            return []
        runs = list(_run_texts(b" ".join(datas)))
        decoded = decode_blocks(runs)
        found = [text for text, plain in zip(runs, decoded, strict=True) if plain is not None]
        if not found:
            return [False] * len(datas)
        return [any(text in data for text in found) for data in datas]

    def runs_decode(self, data: bytes) -> bool:
        """Whether a base64 or hex run of ``data`` decodes to text (what a scan below
        depth 0 would rescan); :class:`~redactors.prefilter.Probe` asks this."""
        seen = set()
        for span in deep_runs(data):
            start, end = span
            if end - start > MAX_BLOCK or span in seen:
                continue
            seen.add(span)
            text = data[start:end].rstrip(b"=").strip(b"-_")
            if len(text) >= 12 and _decode_block(text)[1] is not None:
                return True
        return False


def _run_texts(data: bytes) -> set[bytes]:
    """What every run of :func:`deep_runs` gives to decode (stripped, 12+ characters).

    A base64 run is a stretch of 16+ base64 characters (the ``=`` after it is
    stripped before decoding anyway): every other byte becomes a space and
    ``split`` cuts the stretches out in C, where the run pattern tries every
    position; a hex run of 24+ digits lies inside a stretch that long. (A
    space joins texts whose runs are wanted together: no run crosses it.)
    """
    stretches = [r for r in data.translate(_B64_STRETCHES).split() if len(r) >= 16]
    return {
        text
        for run in (*stretches, *_hex_runs(stretches))
        if len(text := run.strip(b"-_")) >= 12 and len(run) <= MAX_BLOCK
    }


def _hex_runs(stretches: list[bytes]) -> list[bytes]:
    """``_DEEP_HEX_RE.findall`` over each base64 stretch (see :func:`_hex_answer`)."""
    runs = []
    for stretch in stretches:
        if len(stretch) >= 24:
            whole = _hex_answer(stretch)
            if whole > 0:
                runs.append(stretch[:whole])
            elif whole < 0:
                runs.extend(_DEEP_HEX_RE.findall(stretch))
    return runs


def _hex_answer(run: bytes) -> int:
    """What ``_DEEP_HEX_RE`` finds in one base64 run of 24+ characters, where that is plain:
    the length of its one hex run when it is hex digits only (even, as the pattern takes digit
    pairs), 0 when it has fewer than 24 hex digits (none), or -1 when the pattern must decide.
    The pattern tried every position of every long run, the cost of decoded text full of ids
    (cursors' task payloads, a HAR's response bodies)."""
    others = len(run.translate(None, _HEX_DIGITS))
    if not others:
        return len(run) & ~1
    return -1 if len(run) - others >= 24 else 0


def deep_runs(data: bytes) -> Iterator[tuple[int, int]]:
    """The spans of every base64 run of ``data`` (``_DEEP_B64_RE``), then of every hex run
    (``_DEEP_HEX_RE``), each in order.

    A hex run of 24+ digits is a base64 run too (its alphabet is a subset, and it
    ends where a non-hex byte or the base64 run ends), so the hex pattern is tried
    only inside base64 runs that long: not over the whole text, where it tries a
    match at every position.
    """
    long_runs = []
    for found in _DEEP_B64_RE.finditer(data):
        yield found.span()
        if found.end() - found.start() >= 24:
            long_runs.append(found.span())
    for start, end in long_runs:
        whole = _hex_answer(data[start:end])
        if whole > 0:
            yield start, start + whole
        elif whole < 0:
            for found in _DEEP_HEX_RE.finditer(data, start, end):
                yield found.span()


CLEAN_RUN = 5
"""Text that ``_printable`` accepts holds this many printable bytes in a row: a sample of
``s`` >= 6 bytes has at most ``0.1 * s`` others, so one stretch between them is at least
``(s - k) / (k + 1)`` long, 5 or more for every ``s`` (10 bytes with one other: 9 in two
stretches). Random bytes rarely do: a decoded id or digest is refused without a look."""
_CLEAN_RE = re.compile(rb"\x00{%d,}" % CLEAN_RUN)
_COMPRESSED_RE = re.compile(b"|".join(map(re.escape, (b"\x1f\x8b", *ZLIB_HEADS))))
"""A gzip header or a zlib one (:data:`ZLIB_HEADS`)."""
_PAD = {0: b"", 2: b"AA", 3: b"A"}
_B64_STRETCHES = bytes(byte if byte in _B64_ALPHABET else 0x20 for byte in range(256))
"""``translate`` table keeping base64 characters and turning every other byte into a space."""


def decode_blocks(texts: Sequence[bytes]) -> list[bytes | None]:
    """``[_decode_block(t)[1] for t in texts]``: what each block decodes to, if text.

    In a handful of C calls for all of them, where one by one each costs a
    dozen Python-level steps: the hex candidates are unhexlified together and
    the rest decoded as one base64 text, each padded with ``A`` to whole
    4-character groups and the extra bytes cut off after (``XY==`` and ``XYAA``
    decode to the same first byte); only the blocks whose bytes hold a printable
    stretch (:data:`CLEAN_RUN`) are then counted one by one. A gzip header, or
    hex that is not hex past its first 64 digits, takes the single path, so the
    result is always the single path's.
    """
    out: list[bytes | None] = [None] * len(texts)
    settled: set[int] = set()
    hexes = [
        i for i, t in enumerate(texts) if not len(t) & 1 and not t[:64].translate(None, _HEX_DIGITS)
    ]
    if hexes:
        try:
            plain = binascii.unhexlify(b"".join([texts[i] for i in hexes]))
        except (binascii.Error, ValueError):
            for i in hexes:
                out[i] = _decode_block(texts[i])[1]
            settled.update(hexes)
        else:
            sizes = [len(texts[i]) >> 1 for i in hexes]
            for k, start in _printable_among(plain, sizes, sizes):
                out[hexes[k]] = plain[start : start + sizes[k]]
                settled.add(hexes[k])
    # 4n+1 characters: strict base64 refuses them (None)
    rest = [i for i in range(len(texts)) if len(texts[i]) & 3 != 1 and i not in settled]
    if not rest:
        return out
    joined = b"".join([texts[i] + _PAD[len(texts[i]) & 3] for i in rest])
    if joined.translate(None, _B64_ALPHABET):  # not plain base64 characters: one by one
        for i in rest:
            out[i] = _decode_block(texts[i])[1]
        return out
    plain = binascii.a2b_base64(joined.translate(_URLSAFE), strict_mode=True)
    widths = [(len(texts[i]) + 3) // 4 * 3 for i in rest]
    keeps = [w - (-len(texts[i]) & 3) for i, w in zip(rest, widths, strict=True)]
    for k, start in _printable_among(plain, widths, keeps):
        out[rest[k]] = plain[start : start + keeps[k]]
    compressed = {m.start() for m in _COMPRESSED_RE.finditer(plain)}
    if compressed:  # a gzip or zlib stream is inflated first: the single path decides
        for k, start in enumerate(accumulate(widths, initial=0)):
            if start in compressed and k < len(rest):
                out[rest[k]] = _decode_block(texts[rest[k]])[1]
    return out


def _printable_among(plain: bytes, widths: list[int], keeps: list[int]) -> list[tuple[int, int]]:
    """(index, start) of the blocks ``_printable`` accepts: block ``i`` takes ``widths[i]``
    bytes of ``plain`` (in order), of which its decoded text is the first ``keeps[i]``.

    Only the blocks that a printable stretch touches are counted exactly."""
    marks = plain.translate(_UNPRINTABLE_MARKS)
    stretches = [m.span() for m in _CLEAN_RE.finditer(marks)]
    if not stretches:
        return []
    ends = list(accumulate(widths))
    candidates: set[int] = set()
    for start, end in stretches:
        candidates.update(range(bisect_right(ends, start), bisect_right(ends, end - 1) + 1))
    accepted = []
    for i in sorted(candidates):
        pos, keep = ends[i] - widths[i], keeps[i]
        sample = 4096 if keep > 4096 else keep
        if keep >= 6 and sample - marks.count(1, pos, pos + sample) >= 0.9 * sample:
            accepted.append((i, pos))
    return accepted


def _decode_block(text: bytes) -> tuple[str, bytes | None]:
    if len(text) % 2 == 0 and not text[:64].translate(None, _HEX_DIGITS):
        try:
            decoded = binascii.unhexlify(text)
        except (binascii.Error, ValueError):
            decoded = b""
        if _printable(decoded):
            return "hex", decoded
    # Standard, then URL-safe alphabet (``b64decode(validate=True)`` is ``a2b_base64`` in strict
    # mode). Text with ``-`` or ``_`` is refused by the standard one; text without reads the same
    # in both, so one decode answers for the two.
    padded = text + b"=" * (-len(text) % 4)
    if b"-" in text or b"_" in text:
        padded = padded.translate(_URLSAFE)
    try:
        decoded = binascii.a2b_base64(padded, strict_mode=True)
    except (binascii.Error, ValueError):
        return "base64", None
    if decoded[:2] == b"\x1f\x8b":
        inflated = _inflate(decoded, 16 + zlib.MAX_WBITS)
        if inflated is not None and _printable(inflated):
            return "base64+gzip", inflated
        return "base64", None
    if decoded[:2] in ZLIB_HEADS:
        # ``x^`` is a zlib header too: text that only starts like one is read as text
        inflated = _inflate(decoded, zlib.MAX_WBITS)
        if inflated is not None and _printable(inflated):
            return "base64+zlib", inflated
    if _printable(decoded):
        return "base64", decoded
    return "base64", None


def _inflate(data: bytes, wbits: int) -> bytes | None:
    """Up to :data:`MAX_BLOCK` bytes of the gzip (``16 + MAX_WBITS``) or zlib stream ``data``."""
    try:
        inflater = zlib.decompressobj(wbits)
        return inflater.decompress(data, MAX_BLOCK)
    except zlib.error:
        return None


def _printable(data: bytes) -> bool:
    """Mostly text: decoding random bytes (ids, digests) gives binary, which is skipped."""
    if len(data) < 6:
        return False
    sample = data[:4096]
    good = len(sample) - len(sample.translate(None, _PRINTABLE))  # counted in C
    return good >= 0.9 * len(sample)
