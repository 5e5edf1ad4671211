"""Base64 or hex of a text that holds a secret is decoded whatever shape the text has.

Only base64 of compact JSON (``eyJ``), PEM, gzip and a text that starts with a secret's key
was decoded at the top of a member: base64 of pretty-printed or spaced JSON, of a list of
objects, or of a form body whose password is not its first field (``user=bob&password=``)
reached the bundle as it was, and ``bundler review`` called it clean. The openings of JSON
are anchors now, and so is a secret key name's encoding at each of its three alignments,
anywhere in a base64 run, and in hex (the whole run is then decoded and rescanned).
"""

from __future__ import annotations

import base64
import json
import re
import zlib
from collections.abc import Callable

import pytest

from redactors import BundleRedactor, accel
from redactors.anchors import AnchorIndex
from redactors.decode import ZLIB_ANCHORS, _zlib_runs
from redactors.rules import Hit, View
from tests.support.redaction import pass_one, reviews_clean

from ..support.requirements import need

_SECRET = "Zq8rT5vW-hunter2-Kx9w"

ENCODED = {
    "pretty JSON": json.dumps({"password": _SECRET}, indent=2).encode(),
    "tab-indented JSON": json.dumps({"password": _SECRET}, indent="\t").encode(),
    "spaced JSON": b'{ "password": "' + _SECRET.encode() + b'" }',
    "CRLF JSON": b'{\r\n  "password": "' + _SECRET.encode() + b'"\r\n}',
    "a list of objects": json.dumps([{"password": _SECRET}]).encode(),
    "a pretty list": json.dumps([{"password": _SECRET}], indent=2).encode(),
    "JSON, secret not first": b'{ "user": "bob", "api_key": "' + _SECRET.encode() + b'" }',
    "form, key at 0 mod 3": b"user=bob&password=" + _SECRET.encode(),
    "form, key at 1 mod 3": b"usr=bob&password=" + _SECRET.encode(),
    "form, key at 2 mod 3": b"us=bob&password=" + _SECRET.encode(),
    "form, token": b"grant=code&token=" + _SECRET.encode(),
    "form, secret": b"id=app1&client_secret=" + _SECRET.encode(),
    "form, pwd": b"user=bob&pwd=" + _SECRET.encode(),
    "env file": b"HOST=db\nDB_PASSWORD=" + _SECRET.encode() + b"\n",
    "INI, pass": b"[db]\nuser=bob\npass=" + _SECRET.encode() + b"\n",
    "YAML, capitalized": b"User: bob\nPassword: " + _SECRET.encode() + b"\n",
    "HTTP request": b"GET / HTTP/1.1\r\nAuthorization: Bearer " + _SECRET.encode() + b"0a1b\r\n",
}


ENCODINGS = {
    "base64": base64.b64encode,
    "url-safe": base64.urlsafe_b64encode,
    "hex": lambda raw: raw.hex().encode(),
    "HEX": lambda raw: raw.hex().upper().encode(),
    "zlib": lambda raw: base64.b64encode(zlib.compress(raw)),
    "zlib, URL-safe": lambda raw: base64.urlsafe_b64encode(zlib.compress(raw)).rstrip(b"="),
    "zlib level 9": lambda raw: base64.b64encode(zlib.compress(raw, 9)),
    "zlib level 1": lambda raw: base64.b64encode(zlib.compress(raw, 1)),
    "zlib level 3": lambda raw: base64.b64encode(zlib.compress(raw, 3)),
}
PLAIN_ENCODINGS = {name: encode for name, encode in ENCODINGS.items() if "zlib" not in name}


@pytest.mark.parametrize("text", ENCODED.values(), ids=ENCODED.keys())
@pytest.mark.parametrize("encode", ENCODINGS.values(), ids=ENCODINGS.keys())
def test_an_encoded_secret_bearing_text_is_replaced_and_review_agrees(
    text: bytes, encode: Callable[[bytes], bytes]
) -> None:
    blob = encode(text)
    line = b"2026-12-07 10:00:00 request body " + blob + b" sent\n"
    out = pass_one("app.log", line)
    assert blob.rstrip(b"=") not in out
    assert out.startswith(b"2026-12-07 10:00:00 request body [REDACTED:")
    assert out.endswith(b" sent\n")
    assert not reviews_clean("app.log", line)


@pytest.mark.parametrize(
    "text",
    [
        b"user=bob&tokens=3&secretary=alice",
        json.dumps({"offset": 50, "sort": "created_at"}, indent=2).encode(),
        json.dumps([{"name": "w1", "token_count": 3}]).encode(),
        b"the password policy requires rotation every 90 days",
        b"class Password policy: rotate every 90 days, Token count 3",
    ],
    ids=[
        "harmless form",
        "pretty cursor",
        "a list without a secret",
        "prose about a password",
        "capitalized words, no value",
    ],
)
@pytest.mark.parametrize("encode", ENCODINGS.values(), ids=ENCODINGS.keys())
def test_encoded_harmless_text_is_kept(text: bytes, encode: Callable[[bytes], bytes]) -> None:
    line = b"cursor " + encode(text) + b"\n"
    assert pass_one("app.log", line) == line


@pytest.mark.parametrize("encode", PLAIN_ENCODINGS.values(), ids=PLAIN_ENCODINGS.keys())
def test_a_run_naming_many_keys_is_read_once(
    encode: Callable[[bytes], bytes], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A base64 or hex attachment of a log whose every line names a token is one run: it is
    found and decoded once, not walked back to its start from each name (a 6.5 MB one took
    minutes that way)."""
    rescans: list[tuple[int, int]] = []
    rescan = View.rescan_block

    def counted(self: View, start: int, end: int) -> list[Hit]:
        rescans.append((start, end))
        return rescan(self, start, end)

    monkeypatch.setattr(View, "rescan_block", counted)
    blob = encode((b"GET /jobs?page=2 token=" + _SECRET.encode() + b" ok\n") * 200)
    out = pass_one("app.log", b"attachment " + blob + b"\n")
    assert blob.rstrip(b"=") not in out
    start = len(b"attachment ")
    assert rescans.count((start, start + len(blob))) == 1


def test_a_compressed_flask_session_cookie_is_read() -> None:
    """Flask keeps its session in a cookie: ``.`` + URL-safe base64 of the zlib-compressed
    JSON + ``.`` + timestamp + ``.`` + signature. Signed, not encrypted: a password a view
    put in the session reached the bundle, and review called it clean. The payload is
    replaced; the timestamp and the signature, which hold nothing, stay."""
    payload = json.dumps({"_fresh": True, "user": "bob", "password": _SECRET}).encode()
    body = base64.urlsafe_b64encode(zlib.compress(payload)).rstrip(b"=")
    line = b"2026-12-07 10:00:00 set-session ." + body + b".ZxYzAA.abcDEFghi123 ok\n"
    out = pass_one("app.log", line)
    assert body not in out
    assert out.startswith(b"2026-12-07 10:00:00 set-session .[REDACTED:")
    assert out.endswith(b".ZxYzAA.abcDEFghi123 ok\n")
    assert not reviews_clean("app.log", line)


def test_a_zlib_anchor_inside_a_run_is_not_a_stream() -> None:
    """``eJy`` in the middle of a base64 run is chance, not the start of a zlib stream: the run
    is not decoded for it (it would not inflate), and text that merely begins like a zlib
    header (``x^2``) is read as the text it is."""
    inside = base64.b64encode(b"\x00\x01\x02" + zlib.compress(b"password=" + _SECRET.encode()))
    assert not inside.startswith(tuple(ZLIB_ANCHORS))
    assert any(anchor in inside for anchor in ZLIB_ANCHORS)
    line = b"blob " + inside + b"\n"
    assert pass_one("app.log", line) == line
    formula = b"formula " + base64.b64encode(b"x^2 + y^2 with password=" + _SECRET.encode())
    assert _SECRET.encode() not in pass_one("app.log", formula + b"\n")


@pytest.mark.parametrize("index", ["aho-corasick", "hyperscan"])
def test_the_index_finds_the_zlib_anchors_the_decoder_would(
    index: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The decoder takes the anchors' places from the index's pass (``View.zlib_starts``);
    without an index it finds them itself. Both must give the same runs."""
    blob = base64.b64encode(zlib.compress(b"password=" + _SECRET.encode()))
    data = (b"a " + blob + b" eJyA inside" + blob + b" x^eNq\n" + b"eAEend " * 3) * 50
    if index == "hyperscan":
        need(accel.available(), "hyperscan is not installed (pip install -e '.[fast]')")
        monkeypatch.setattr(accel, "SMALL_TEXT", 0)
        anchors: AnchorIndex = accel.HyperscanIndex(BundleRedactor(key=b"k" * 32).rules)
    else:
        anchors = AnchorIndex(BundleRedactor(key=b"k" * 32).rules)
    view = View(data)
    anchors.positions(view)
    assert view.markers is not None
    assert "zlib" in view.markers
    anywhere = re.compile(b"(?=" + b"|".join(ZLIB_ANCHORS) + b")")
    assert view.zlib_starts == [found.start() for found in anywhere.finditer(data)]
    found = list(_zlib_runs(data, view.zlib_starts))
    assert found == list(_zlib_runs(data, None))
    # a run's start: the first blob, ``eJyA``, ``eNq`` after ``^``, each ``eAEend``; the
    # blob glued to ``inside`` is inside a run
    assert len(found) == 6 * 50
