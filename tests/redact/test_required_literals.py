"""A rule skips a text that lacks a literal every match of its pattern holds.

``name-value-pair`` starts at every ``name`` of a JSON listing but can only
match where a ``value`` follows; the literal is read from the pattern, so it
can never disagree with it: without it, the pattern finds nothing.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from redactors import BundleRedactor
from redactors.rules import (
    Rule,
    View,
    matches_at,
    max_newlines,
    required_literals,
    starts_in_windows,
    starts_near,
)

_RULES = BundleRedactor(key=b"k" * 32).engine.rules
_PIECES = [b"name", b"value", b"NAME", b'"', b": ", b"=", b" ", b"\n", b"-", b",", b"db_pass"]
_PIECES += [b"insert ", b"into", b"create ", b"table", b"x", b"'", b"\n", b"  - ", b"DB_PASSWORD"]


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        (rb"name[:=]+value", (b"value",)),
        (rb"a(?:b|c)defg", (b"defg",)),
        (rb"ab+cdef[0-9]+xyz1", (b"cdef", b"xyz1")),
        (rb"x(?:value)?y", ()),
        (rb"k(?:ab|cd)", ()),
        (rb"prefix-only", ()),
        (rb"(?i)name=value", ()),
    ],
)
def test_required_literals_are_the_top_level_runs_after_the_prefix(
    pattern: bytes, expected: tuple[bytes, ...]
) -> None:
    assert required_literals(re.compile(pattern)) == expected


def test_the_catalog_rules_that_need_an_inner_literal() -> None:
    required = {rule.id: rule.required for rule in _RULES if rule.required}
    assert required["name-value-pair"] == (b"value",)
    for rule in _RULES:
        for text, _secret in rule.examples:
            probe = text.encode().lower() if rule.lower else text.encode()
            assert all(literal in probe for literal in rule.required), rule.id


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.sampled_from(_PIECES),
        max_size=30,
    )
)
def test_without_its_inner_literal_a_rule_finds_nothing(pieces: list[bytes]) -> None:
    """Checked against the pattern itself: where the check skips, ``finditer`` is empty."""
    text = b"".join(pieces)
    for rule in _RULES:
        if not rule.required or rule.regex is None:
            continue
        subject = text.lower() if rule.lower else text
        if not all(literal in subject for literal in rule.required):
            assert list(rule.regex.finditer(subject)) == []
            assert list(rule.hits(View(text))) == []


def test_a_rule_with_its_inner_literal_still_finds_its_secret() -> None:
    rule = next(r for r in _RULES if r.id == "name-value-pair")
    text = b'{"name": "DB_PASSWORD",\n "value": "s3cret-v"}'
    assert [text[h.start : h.end] for h in rule.hits(View(text))] == [b"s3cret-v"]
    shaped = Rule("t", "secret", "test", "inner literal", rb"name=\w+;value=(\w+)", group=1)
    assert shaped.required == (b";value=",)
    assert list(shaped.hits(View(b"name=a;value=b"))) != []
    assert list(shaped.hits(View(b"name=a;other=b"))) == []


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        (rb"a\nb", 1),
        (rb"a[^x]b", 1),
        (rb"a.b", 0),
        (rb"(?s)a.b", 1),
        (rb"a(?:\n|x){2}", 2),
        (rb"a[ \t]*\r?\n?b", 1),
        (rb"a[^\n]*b", 0),
        (rb"a\s+", None),
        (rb"a[\n ]*", None),
        (rb"(a)\1", None),
    ],
)
def test_max_newlines_reads_the_pattern(pattern: bytes, expected: int | None) -> None:
    assert max_newlines(re.compile(pattern)) == expected


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=40))
def test_trying_the_pattern_near_its_inner_literal_finds_what_finditer_finds(
    pieces: list[bytes],
) -> None:
    text = b"".join(pieces)
    for rule in _RULES:
        if not rule.required or rule.newlines is None or rule.regex is None or not rule.anchors:
            continue
        subject = text.lower() if rule.lower else text
        expected = [m.span() for m in rule.regex.finditer(subject)]
        everywhere = sorted(
            {m.start() for a in rule.anchors for m in re.finditer(re.escape(a), subject)}
        )
        near = starts_in_windows(subject, rule.anchors, rule.required[0], rule.newlines)
        assert [m.span() for m in matches_at(rule.regex, subject, near)] == expected
        near = starts_near(subject, everywhere, rule.required, rule.newlines)
        assert [m.span() for m in matches_at(rule.regex, subject, near)] == expected


def test_the_window_keeps_a_name_whose_value_is_on_the_next_line() -> None:
    text = b"- name: FLUX_TOKEN\n  value: abc123\n- name: LOG_LEVEL\n  image: x\n"
    assert starts_in_windows(text, (b"name",), b"value", 1) == [2]
    assert starts_near(text, [2, 37], (b"value",), 1) == [2]
