"""The one-pass literal index finds exactly what each rule's own ``finditer`` finds."""

from __future__ import annotations

import random
import string

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from redactors import BundleRedactor, Policy
from redactors.anchors import MARKERS, UNINDEXED_MARKERS, AnchorIndex
from redactors.engine import Engine
from redactors.rules import Rule, View

from .corpus import CASES


def _corpus_texts() -> list[bytes]:
    texts = []
    for case in CASES:
        for data in case.files.values():
            raw = data.encode() if isinstance(data, str) else data
            if b"\0" not in raw:
                texts.append(raw)
    return texts


def _mixed_log(lines: int, seed: int) -> bytes:
    rng = random.Random(seed)
    shapes = [
        "level=info msg=ok token_count=3 key={w} session={w}\n",
        '{{"password": "{w}", "api_key": "sk-{w}{w}", "name": "DB_PASSWORD", "value": "{w}"}}\n',
        "GET https://user:{w}@example.net/x?sig={w} HTTP/1.1 cookie: a={w}\n",
        "Authorization: Bearer eyJ{w}.{w}.{w} webhook secret={w} machine h login u password {w}\n",
        "cred:{w} psk={w} pw={w} acc={w} tokentoken={w} keykey:{w} passpass={w}\n",
        "ghp_{w}{w} glpat-{w} npm_{w} hf_{w} whsec_{w} SG.{w}.{w} AKIA{W}\n",
    ]
    out = []
    for _ in range(lines):
        word = "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(20))
        out.append(rng.choice(shapes).format(w=word, W=word.upper()[:16]))
    return "".join(out).encode()


def _hits(engine: Engine, data: bytes) -> list[tuple[int, int, str, str]]:
    return [(h.start, h.end, h.kind, h.rule) for h in engine.scan(View(data))]


def _engines(policy: Policy) -> tuple[Engine, Engine]:
    redactor = BundleRedactor(policy, key=b"k" * 32)
    indexed = redactor.engine
    plain = Engine(redactor.rules)
    plain.anchors = AnchorIndex([])
    return indexed, plain


def test_most_builtin_rules_are_indexed() -> None:
    engine = BundleRedactor(key=b"k" * 32).engine
    indexed = {engine.rules[i].id for i in engine.anchors.indexed}
    assert {"kv-pass", "kv-token", "jwt", "cookie", "url-userinfo"} <= indexed
    assert len(indexed) >= len(engine.rules) // 2


FULL_SCAN = {"email"}
"""Built-in regex rules that may run ``finditer`` over every text: an address is found by its
``@``, one byte. A rule that is not indexed costs a scan of every text of every bundle (the
two command-line flag rules of 2026-12-07, led by a blank and a dash, were a sixth of pass
one on the benchmark corpus until their patterns spelt out their literals)."""


def test_every_builtin_regex_rule_but_a_named_few_is_indexed() -> None:
    engine = BundleRedactor(key=b"k" * 32).engine
    full_scan = {
        rule.id
        for index, rule in enumerate(engine.rules)
        if rule.scanner is None and index not in engine.anchors.indexed
    }
    assert full_scan == FULL_SCAN


def test_one_byte_and_two_byte_space_led_literals_are_not_indexed() -> None:
    """`` -`` is on every log line; `` -p`` (a CLI flag) is rare enough to index."""
    rules = [
        Rule("one", "x", "test", "one byte", rb"x[0-9]+"),
        Rule("space", "x", "test", "space led", rb" -[0-9]+"),
        Rule("word", "x", "test", "a word", rb"secret=[0-9]+"),
        Rule("flag", "x", "test", "space led flag", rb" -p[0-9]+"),
    ]
    assert AnchorIndex(rules).indexed == {2, 3}


def test_a_literal_too_common_in_a_text_falls_back_to_the_rules_own_scan() -> None:
    rules = [Rule("word", "x", "test", "a word", rb"ab[0-9]+")]
    index = AnchorIndex(rules)
    assert index.positions(View(b"ab1 " * 10)) == {0: [0, 4, 8, 12, 16, 20, 24, 28, 32, 36]}
    assert index.positions(View(b"ab " * 100_000)) == {0: None}
    assert index.positions(View(b"no literal here")) == {}


def test_overlapping_literals_give_finditer_s_matches() -> None:
    rule = Rule("w", "x", "test", "w", rb"(?:aba|ab)[0-9a]*")
    text = b"ababa1 abab ab9 xaba"
    starts = AnchorIndex([rule]).positions(View(text))[0]
    assert [m.span() for m in rule.regex.finditer(text)] == [  # type: ignore[union-attr]
        (h.start, h.end) for h in rule.hits(View(text), starts)
    ]


def test_the_corpus_and_a_mixed_log_scan_the_same_with_and_without_the_index() -> None:
    indexed, plain = _engines(Policy())
    texts = [*_corpus_texts(), _mixed_log(3000, 1), _mixed_log(300, 2).lower()]
    for text in texts:
        assert _hits(indexed, text) == _hits(plain, text)


def test_keywords_and_network_rules_scan_the_same_with_and_without_the_index() -> None:
    indexed, plain = _engines(Policy(obfuscate_network=True, keywords=("ProjectX", "acme-corp")))
    text = (
        _mixed_log(500, 3)
        + (
            b"host db01.corp.example.com 10.1.2.3 user alice projectx ACME-CORP "
            b"/home/bob ip-10-1-2-3 fe80::1 2001:db8::5\n"
        )
        * 20
    )
    assert _hits(indexed, text) == _hits(plain, text)


FRAGMENTS = st.lists(
    st.sampled_from(
        [
            "password",
            "token",
            "key",
            "secret=",
            ": ",
            "=",
            '"',
            "'",
            "\n",
            " ",
            "-",
            "--",
            "Bearer ",
            "://",
            "@",
            "eyJ",
            "ghp_",
            "abc123XYZ987",
            "hunter2!",
            "cookie:",
            "sig=",
            "pw",
            "api-key(",
            "name",
            "value",
            "machine ",
            "AKIA",
        ]
    ),
    max_size=60,
)


@settings(
    max_examples=150, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
@given(FRAGMENTS)
def test_random_texts_scan_the_same_with_and_without_the_index(pieces: list[str]) -> None:
    indexed, plain = ENGINES
    text = "".join(pieces).encode()
    assert _hits(indexed, text) == _hits(plain, text)


ENGINES = _engines(Policy())


def test_the_pass_reports_which_other_scans_literals_occur_case_as_written() -> None:
    """``View.markers`` lets a text skip the PEM scanner, the escape decoders and the block
    anchors: each is reported where its literal occurs as written, and only there (the pass
    runs over the lower-cased text, so ``h4si`` must not count as ``H4sI``)."""
    index = AnchorIndex([Rule("word", "x", "test", "a word", rb"Secret=[0-9]+")])
    plain = View(b"nothing to see here, Secret=1")
    assert index.positions(plain) == {0: [21]}
    assert plain.markers == UNINDEXED_MARKERS
    for name, literals in MARKERS.items():
        for literal in literals:
            view = View(b"before " + literal + b" after")
            index.positions(view)
            assert view.markers == UNINDEXED_MARKERS | {name}, (name, literal)
            if literal.lower() not in literals and name not in UNINDEXED_MARKERS:
                twisted = View(b"before " + literal.lower() + b" after")
                index.positions(twisted)
                assert twisted.markers == UNINDEXED_MARKERS, (name, literal)
    assert index.positions(View(b"secret=1")) == {}  # a case-sensitive literal, as written
