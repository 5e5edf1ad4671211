"""Each pure-Python fast path gives what the plain code it replaces gives (property tests).

The probe must say "maybe" wherever the full scan finds something; the single
base64 decode must decide as the two-alphabet loop did; the regex quoting
must spell every byte as ``urllib.parse`` does.
"""

from __future__ import annotations

import base64
import binascii
import re
import urllib.parse

from hypothesis import given, settings
from hypothesis import strategies as st

from redactors import BundleRedactor
from redactors.binary import control_bytes, record_text_bytes
from redactors.catalog.context import CONTEXT_RULES
from redactors.catalog.keyvalue import KV_RULES
from redactors.catalog.urls import _scheme_before
from redactors.decode import (
    _DEEP_B64_RE,
    _DEEP_HEX_RE,
    ZLIB_HEADS,
    _decode_block,
    _hex_runs,
    _printable,
    deep_runs,
)
from redactors.quoting import quote, quote_plus, quoted_forms
from redactors.rules import Rule, View

_B64ISH = st.text(
    alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/-_=", max_size=80
).map(str.encode)
_TEXTISH = st.one_of(
    st.binary(max_size=120),
    st.text(
        alphabet='abcdefkpstwy{}":=,. -_/@%&\\u0' + "ABCDEFGHJKLMNQRSTUVWXYZ", max_size=120
    ).map(str.encode),
)


def _plain_decode_block(text: bytes) -> tuple[str, bytes | None]:
    """The decoder as it was: hex, then base64 in the standard and the URL-safe alphabet."""
    if len(text) % 2 == 0 and all(c in b"0123456789abcdefABCDEF" for c in text[:64]):
        try:
            decoded = binascii.unhexlify(text)
        except (binascii.Error, ValueError):
            decoded = b""
        if _printable(decoded):
            return "hex", decoded
    for alphabet in (None, b"-_"):
        try:
            padded = text + b"=" * (-len(text) % 4)
            decoded = base64.b64decode(padded, altchars=alphabet, validate=True)
        except (binascii.Error, ValueError):
            continue
        if decoded[:2] == b"\x1f\x8b" or decoded[:2] in ZLIB_HEADS:
            return "gzip", None  # both inflate the same way (test_accel covers it)
        if _printable(decoded):
            return "base64", decoded
    return "base64", None


@settings(max_examples=400, deadline=None)
@given(st.one_of(_B64ISH, _B64ISH.map(lambda t: base64.b64encode(t)), st.binary(max_size=40)))
def test_one_decode_decides_as_the_two_alphabet_loop(text: bytes) -> None:
    plain = _plain_decode_block(text)
    if plain[0] != "gzip":
        assert _decode_block(text) == plain


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=40), st.sampled_from([b"", b"@:/", b" "]))
def test_quoting_spells_every_byte_as_urllib(value: bytes, safe: bytes) -> None:
    assert quote(value, safe) == urllib.parse.quote(value, safe=safe.decode()).encode()
    assert quote_plus(value, safe) == urllib.parse.quote_plus(value, safe=safe.decode()).encode()
    assert quoted_forms(value) == (
        urllib.parse.quote(value, safe="").encode(),
        urllib.parse.quote(value, safe="@:/").encode(),
        urllib.parse.quote_plus(value, safe="").encode(),
    )


_ENGINE = BundleRedactor(key=b"k" * 32).engine


@settings(max_examples=300, deadline=None)
@given(_TEXTISH, st.integers(min_value=0, max_value=3))
def test_the_probe_says_no_only_where_the_scan_finds_nothing(text: bytes, depth: int) -> None:
    assert _ENGINE.probe is not None
    if _ENGINE.probe.may_hit(text, depth):
        return
    probe, _ENGINE.probe = _ENGINE.probe, None
    try:
        assert _ENGINE.scan(View(text), depth) == []
    finally:
        _ENGINE.probe = probe


def test_the_probe_lets_a_base64_secret_through() -> None:
    """The property above holds vacuously if the probe always says maybe: check it says no."""
    probe = _ENGINE.probe
    assert probe is not None
    cursor = base64.urlsafe_b64encode(b'{"offset": 100, "id": "' + b"ab" * 16 + b'"}')
    assert not probe.may_hit(base64.urlsafe_b64decode(cursor), 1)
    assert probe.may_hit(b'{"password": "hunter2"}', 1)
    assert probe.may_hit(base64.b64encode(b"token=ghp_" + b"a" * 36), 1)  # decodes to text


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.sampled_from(["\u2014", "\u2013", "\u00e9", "\u200b", "\u200d", "\ufeff", "x"]),
        max_size=12,
    ),
    st.sampled_from(["pa\u200bssword", "\u0440assword", "pass\u2060word", "\ufeffpassword"]),
)
def test_confusables_are_found_among_em_dashes(noise: list[str], keyword: str) -> None:
    """The confusable decoder skips the text before the first place one can start, found by
    a one-byte test then a search per start: an em dash shares two bytes with the zero-width
    space, so lines full of them must not hide one (nor start the decoder in the wrong place)."""
    line = "Auth disabled \u2014 request treated as admin " + "".join(noise) + "\n"
    text = (line * 40 + f"{keyword}=Conf-Pw-99\n" + line * 3).encode()
    redactor = BundleRedactor(key=b"k" * 32)
    out = b"".join(redactor.transform("app.log", [text], media_type="text/plain"))
    assert b"Conf-Pw-99" not in out
    assert out.count(b"\n") == text.count(b"\n")


_SCHEME_BACK = re.compile(rb"[A-Za-z][A-Za-z0-9+.-]{0,30}$")
"""The regex the URL rule's scheme test replaced."""


@settings(max_examples=600, deadline=None)
@given(st.binary(max_size=50).map(lambda b: b.translate(_URLISH)), st.integers(0, 50))
def test_the_scheme_test_answers_as_its_regex(data: bytes, end: int) -> None:
    """The URL rule asks whether a scheme ends where ``://`` begins: ``rstrip`` then a
    letter test, in place of a regex search over the 31 bytes before it."""
    end = min(end, len(data))
    expected = _SCHEME_BACK.search(data, max(0, end - 31), end) is not None
    assert _scheme_before(data, end) is expected


_URLISH = bytes(b"aZq09+.-:/ \n_@"[i % 14] for i in range(256))
"""``translate`` table folding random bytes onto a URL's alphabet and its neighbours."""


_STRETCHES = st.one_of(
    st.text(alphabet="0123456789abcdefABCDEF", min_size=16, max_size=90),
    st.text(alphabet="0123456789abcdef-_+/xyZ", min_size=16, max_size=90),
).map(str.encode)


@settings(max_examples=500, deadline=None)
@given(_STRETCHES)
def test_hex_runs_in_a_stretch_are_what_the_pattern_finds(stretch: bytes) -> None:
    """Inside a decoded cursor's base64 stretches, the hex runs are taken whole when the
    stretch is all digits, skipped when it has fewer than 24, else found by the pattern."""
    expected = _DEEP_HEX_RE.findall(stretch) if len(stretch) >= 24 else []
    assert _hex_runs([stretch]) == expected


def _plain_deep_runs(data: bytes) -> list[tuple[int, int]]:
    """The runs as the two patterns find them: base64 runs, then hex runs inside long ones."""
    runs = [m.span() for m in _DEEP_B64_RE.finditer(data)]
    return runs + [
        m.span()
        for start, end in runs
        if end - start >= 24
        for m in _DEEP_HEX_RE.finditer(data, start, end)
    ]


@settings(max_examples=500, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.text(alphabet="0123456789abcdefABCDEF", min_size=20, max_size=40),
            st.text(alphabet='0123456789abcdefABCDEF+/-_=xyz :"{}', max_size=30),
        ),
        max_size=6,
    ).map(lambda pieces: "".join(pieces).encode())
)
def test_deep_runs_are_what_the_two_patterns_find(data: bytes) -> None:
    assert list(deep_runs(data)) == _plain_deep_runs(data)


_KV_TEXT = st.lists(
    st.sampled_from(
        [
            "auth",
            "-auth",
            "token",
            "pass",
            "key",
            "_service",
            "word",
            "x.y-z",
            " ",
            "\t",
            ":",
            "=",
            ">",
            "=>",
            ":=",
            '\\"',
            "&quot;",
            "\\u0022",
            "'",
            "-",
            "\n",
            "AbCdEf0123456789+/xyzXYZ",
        ]
    ),
    max_size=14,
).map(lambda pieces: "".join(pieces).lower().encode())


@settings(max_examples=600, deadline=None)
@given(_KV_TEXT)
def test_possessive_key_value_patterns_match_as_backtracking_ones(text: bytes) -> None:
    """The key/value rules take a key's name and the blanks before its separator
    possessively; with backtracking they find the same matches, only slower."""
    for rule in KV_RULES:
        assert rule.pattern is not None
        backtracking = re.compile(
            rule.pattern.replace(rb"{0,48}+)", rb"{0,48})").replace(rb"{0,4}+(", rb"{0,4}(")
        )
        assert backtracking.pattern != rule.pattern
        expected = [(m.span(), m.groupdict()) for m in backtracking.finditer(text)]
        assert [(m.span(), m.groupdict()) for m in rule.regex.finditer(text)] == expected  # type: ignore[union-attr]


_URL = st.tuples(
    st.sampled_from(["", " ", "\n", '"', "x=", "see "]),
    st.sampled_from(["https", "postgres", "mongodb+srv", "redis", "", "1"]),
    st.sampled_from(["", "user:pa55w0rd@", ":pw0rd@", "app:kFDi#uJ/b?0@", "u:p%40ss@", "bob@",
                     "ghp_0tV2AYN9VbDzHmYq4a89IyaRJy4JhfTNwRuI@", "user:"]),
    st.sampled_from(["db.internal:5432", "flux-server:8000", "HOOKS.Slack.com/services/",
                     "discord.com/api/webhooks/", "acme.webhook.office.com/webhookb2/", ""]),
    st.sampled_from(["", "/x", "/workers/w1/heartbeat", "/p@ss@db:5432/x", "?q=a@b.com",
                     "T0123ABCD/B0123ABCD/AbCdEfGhIjKlMnOpQrStUvWx", "#frag@x", " tail@x"]),
).map(lambda parts: "{}{}://{}{}{}".format(*parts))  # fmt: skip
_URL_TEXT = st.lists(_URL, max_size=4).map(lambda urls: " ".join(urls).encode())


@settings(max_examples=800, deadline=None)
@given(_URL_TEXT)
def test_the_url_rule_refuses_in_its_pattern_only_what_its_handler_would(text: bytes) -> None:
    """``url-userinfo`` matches ``://`` only where an ``@`` or a webhook host follows: every
    other place its handler finds nothing, so the hits are those of plain ``://``."""
    rule = next(r for r in CONTEXT_RULES if r.id == "url-userinfo")
    plain = Rule(rule.id, rule.kind, rule.category, rule.description, rb"://", handler=rule.handler)
    assert rule.pattern != plain.pattern

    def hits(r: Rule) -> list[tuple[int, int, str, tuple[bytes, ...]]]:
        return [(h.start, h.end, h.kind, h.extra) for h in r.hits(View(text))]

    assert hits(rule) == hits(plain)


@settings(max_examples=400, deadline=None)
@given(st.binary(max_size=300))
def test_sniff_counts_bytes_as_the_plain_loops_did(sample: bytes) -> None:
    """``sniff`` counts control bytes (and, for NUL-separated records, text bytes) with
    ``translate``; the loops it replaced counted byte by byte."""
    assert control_bytes(sample) == sum(
        1 for c in sample if c < 32 and c not in (9, 10, 12, 13, 27, 0)
    )
    assert record_text_bytes(sample) == sum(
        1 for c in sample if 32 <= c < 127 or c in (0, 9, 10, 13)
    )
