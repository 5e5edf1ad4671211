"""Text in UTF-16 and UTF-32, either byte order, with a byte-order mark or without.

Before: only UTF-16 with a BOM and little-endian UTF-16 without one were transcoded.
Big-endian UTF-16 without a BOM and all UTF-32 were read as "NUL-separated records"
(``/proc/<pid>/environ``'s shape): no rule matches ``p\\0a\\0s\\0s``, so ``redact``
kept every secret and ``review`` called the output clean. UTF-32 with its BOM was worse:
taken for UTF-16 (its BOM begins with UTF-16's) and written out as NULs between letters.
"""

from __future__ import annotations

import gzip

import pytest

from bundler.source import MemorySource
from redactors.binary import sniff
from redactors.errors import MemberUnreadable
from redactors.review import review_source
from tests.support.redaction import run

TOKEN = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
TEXT = f"password=Wide-Secret-9x\n{TOKEN}\nuser=alice ünïcødé 日本 ok\n"

ENCODED = {
    "utf-16 (BOM, little-endian)": TEXT.encode("utf-16"),
    "utf-16-le": TEXT.encode("utf-16-le"),
    "utf-16-be": TEXT.encode("utf-16-be"),
    "utf-16-be with BOM": b"\xfe\xff" + TEXT.encode("utf-16-be"),
    "utf-32 (BOM, little-endian)": TEXT.encode("utf-32"),
    "utf-32-le": TEXT.encode("utf-32-le"),
    "utf-32-be": TEXT.encode("utf-32-be"),
    "utf-32-be with BOM": b"\x00\x00\xfe\xff" + TEXT.encode("utf-32-be"),
}


@pytest.mark.parametrize("data", ENCODED.values(), ids=ENCODED.keys())
def test_redact_transcodes_and_redacts(data: bytes) -> None:
    outputs, _, refused = run({"export.log": data, "export.log.gz": gzip.compress(data)})
    assert refused == {}
    for out in (outputs["export.log"], gzip.decompress(outputs["export.log.gz"])):
        text = out.decode("utf-8")
        assert "Wide-Secret-9x" not in text
        assert TOKEN not in text
        assert text.startswith("password=[REDACTED:password:")
        assert text.endswith("\nuser=alice ünïcødé 日本 ok\n")  # the rest, as it was
        assert "\0" not in text
        assert "\ufeff" not in text


@pytest.mark.parametrize("data", ENCODED.values(), ids=ENCODED.keys())
def test_review_reads_them_as_the_redactor_does(data: bytes) -> None:
    result = review_source(MemorySource({"export.log": data}))
    assert sorted(f.kind for f in result.findings) == ["github-token", "password"]


def test_records_separated_by_nul_are_still_text() -> None:
    environ = b"PATH=/usr/bin\0HOME=/root\0TERM=xterm\0API_TOKEN=" + TOKEN.encode() + b"\0"
    assert sniff(environ * 3).kind == "text"
    found = review_source(MemorySource({"environ": environ})).findings
    assert "github-token" in {f.kind for f in found}


def test_one_character_between_nuls_is_not_text_review_can_vouch_for() -> None:
    """Letters one by one between NULs, in no fixed width (a wide encoding damaged, or one
    none of the checks above knows): not records either, so binary, left out, rejected.
    Read as records, as before, ``p\0a\0s\0s`` hid the secret from every rule."""
    letters = [bytes([c]) for c in ("password=Wide-Secret-9x\n" * 12).encode()]
    data = b"".join(letter + (b"\0\0" if i % 7 == 6 else b"\0") for i, letter in enumerate(letters))
    assert sniff(data).kind == "binary"
    with pytest.raises(MemberUnreadable):
        review_source(MemorySource({"export.log": data}))
    _, _, refused = run({"export.log": data})
    assert refused == {"export.log": "binary"}
