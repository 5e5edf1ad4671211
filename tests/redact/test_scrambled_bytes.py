"""Compressed, encrypted or random bytes with no signature are binary, not text.

Before: a raw deflate, zlib or LZMA ("alone") stream, or random bytes, has about one
control byte in ten and no magic the sniffer knew, so it read as text. ``redact`` kept
it as it was (a password inside, compressed) and ``review`` scanned it, found nothing it
could recognise and called it clean. Text in a legacy encoding (Latin-1, KOI8-R, GBK,
Big5, Shift-JIS) is not UTF-8 either, and must stay text.
"""

from __future__ import annotations

import lzma
import random
import zlib

import pytest

from bundler.source import MemorySource
from redactors.binary import sniff
from redactors.errors import MemberUnreadable
from redactors.review import review_source
from tests.support.redaction import run

SECRET = b"password=Scrambled-Secret-41\n"
TEXT = b"".join(b"2026-12-01 worker w%d heartbeat ok\n" % n for n in range(400)) + SECRET
RANDOM = random.Random(41).randbytes(20_000)

SCRAMBLED = {
    "raw deflate": zlib.compress(TEXT)[2:-4],
    "zlib": zlib.compress(TEXT),
    "lzma alone": lzma.compress(TEXT, format=lzma.FORMAT_ALONE),
    "random": RANDOM,
    "short zlib": zlib.compress(SECRET),
}


@pytest.mark.parametrize("data", SCRAMBLED.values(), ids=SCRAMBLED.keys())
def test_review_refuses_to_vouch_for_them(data: bytes) -> None:
    assert sniff(data).kind == "binary"
    with pytest.raises(MemberUnreadable, match="review cannot vouch"):
        review_source(MemorySource({"state.bin": data}))


@pytest.mark.parametrize("data", SCRAMBLED.values(), ids=SCRAMBLED.keys())
def test_redact_leaves_them_out(data: bytes) -> None:
    outputs, _, refused = run({"state.bin": data})
    assert refused == {"state.bin": "binary"}
    assert outputs == {}


def _legacy(encoding: str, alphabet: str) -> bytes:
    rng = random.Random(encoding)
    words = ["".join(rng.choice(alphabet) for _ in range(rng.randint(1, 6))) for _ in range(3000)]
    line = " ".join(words)
    return (line + "\n" + SECRET.decode()).encode(encoding, "ignore")


LEGACY = {
    "latin-1": _legacy("latin-1", "abcdefghijklmnopqrstuvwxyzäöüßéèàçÀÉ0123456789"),
    "koi8-r": _legacy("koi8-r", "абвгдеёжзийклмнопрстуфхцчшщъыьэюя"),
    "gbk": _legacy("gbk", "".join(chr(c) for c in range(0x4E00, 0x9FA0, 7))),
    "big5": _legacy("big5", "".join(chr(c) for c in range(0x4E00, 0x9FA0, 7))),
    "shift_jis": _legacy("shift_jis", "".join(chr(c) for c in range(0x4E00, 0x9FA0, 7))),
}


@pytest.mark.parametrize("data", LEGACY.values(), ids=LEGACY.keys())
def test_text_in_a_legacy_encoding_is_still_text(data: bytes) -> None:
    assert sniff(data).kind == "text"
    outputs, _, refused = run({"app.log": data})
    assert refused == {}
    assert b"Scrambled-Secret-41" not in outputs["app.log"]
    assert [f.kind for f in review_source(MemorySource({"app.log": data})).findings] == ["password"]
