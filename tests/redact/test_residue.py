"""The review's fast residue and secret-word scans find exactly what their reference patterns do."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from redactors.residue import RESIDUE, SECRET_WORDS, residue_spans, secret_word_ends

COMMON = settings(
    max_examples=400, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
TOKEN_PIECES = st.lists(
    st.sampled_from(
        [
            "[REDACTED:password:1a2b3c4d]",
            "[REDACTED:keyword:0f0f0f0f]",
            "[REDACTED:",
            "[REDACTED:x:1234567]",
            "abcd",
            "ab",
            "Z9",
            "\\",
            "%",
            " ",
            "]",
            "keyword:",
            "\n",
            "u003d",
        ]
    ),
    max_size=30,
)
WORD_PIECES = st.lists(
    st.sampled_from(
        [
            "secret",
            "token",
            "passw",
            "api_key",
            "apikey",
            "api",
            "_",
            "key",
            "credential",
            "private",
            "secre",
            "t",
            "oken",
            "s",
            " ",
            "x",
        ]
    ),
    max_size=30,
)


@COMMON
@given(TOKEN_PIECES)
def test_residue_spans_are_the_reference_pattern_s_matches(pieces: list[str]) -> None:
    data = "".join(pieces).encode()
    assert list(residue_spans(data)) == [m.span() for m in RESIDUE.finditer(data)]


@COMMON
@given(WORD_PIECES)
def test_secret_word_ends_are_the_reference_pattern_s_matches(pieces: list[str]) -> None:
    low = "".join(pieces).encode()
    assert list(secret_word_ends(low)) == [m.end() for m in SECRET_WORDS.finditer(low)]


def test_known_residue_shapes() -> None:
    data = (
        b"ok [REDACTED:password:1a2b3c4d]tail1 and abcd[REDACTED:token:00000000] "
        b"and \\u003d[REDACTED:x:11111111] and [REDACTED:keyword:22222222]word"
    )
    spans = list(residue_spans(data))
    found = [data[a:b] for a, b in spans]
    assert found == [b"[REDACTED:password:1a2b3c4d]tail1", b"abcd[REDACTED:"]
