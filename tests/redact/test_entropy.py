"""The high-entropy fallback ("the token is 9f8Z...") takes a whole run, and only after a key word.

Found by reviewing a redacted 200 MB benchmark log: a 32-hex request id after
"keyboard layout set to us" was taken for a prose secret ("key" inside
"keyboard") and cut at the scan window, leaving half of it glued to the token
(which ``bundler review`` rightly reported as residue).
"""

from __future__ import annotations

from bundler.source import MemorySource
from redactors import BundleRedactor, review_source
from tests.support.redaction import ALNUM, rand


def _redact(text: str) -> tuple[bytes, BundleRedactor]:
    redactor = BundleRedactor(key=b"k" * 32)
    first = b"".join(redactor.transform("a.log", [text.encode()], media_type="text/plain"))
    return b"".join(redactor.finalize("a.log", [first])), redactor


def test_a_request_id_after_the_word_keyboard_is_kept() -> None:
    line = 'msg="keyboard layout set to us" request_id=b027ca98baa13b7d43ffe2bf56bd4cae ok\n'
    out, _ = _redact(line)
    assert out == line.encode()


def test_a_long_prose_secret_is_replaced_whole_even_past_the_scan_window() -> None:
    secret = "9f8Z" + rand(ALNUM, 76, "long-prose")
    out, redactor = _redact(f"the session token is now {secret} for this run\n")
    assert secret[:8].encode() not in out
    assert secret[-8:].encode() not in out
    assert out.endswith(b"] for this run\n")
    review = review_source(
        MemorySource({"a.log": out, "redaction-report.json": b"{}"}), report=redactor.report()
    )
    assert [f for f in review.findings if f.check == "encoded-literal"] == []


def test_prose_keywords_inside_other_words_do_not_trigger() -> None:
    value = "Zq9" + rand(ALNUM, 29, "monkey")
    for text in (f"monkey business {value}\n", f"the secretary said {value}\n"):
        out, _ = _redact(text)
        assert value.encode() in out, text


def test_the_key_word_alone_still_triggers() -> None:
    value = "Zq9" + rand(ALNUM, 29, "key-alone")
    out, _ = _redact(f"the key is {value}\n")
    assert value.encode() not in out
