"""Small rules shared by writer and reader: member names, reader limits, re-chunking."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bundler.archive import ReaderLimits
from bundler.archive._chunks import rechunk
from bundler.archive.limits import GiB
from bundler.archive.names import member_name_problem, printable_name
from bundler.archive.zipscan import ratio_refused, ratio_text
from bundler.errors import UsageError


@pytest.mark.parametrize(
    "name",
    ["manifest.json", "evidence/workers.json", "hosts/h01/logs/0.log", "a.b/c..d/..e", "ünï.txt"],
)
def test_good_names(name: str) -> None:
    assert member_name_problem(name) is None


@pytest.mark.parametrize(
    "name",
    ["", "/x", "..", "../x", "a/..", "a/../b", "a\\b", "a\x00b", "a\nb", "c:/x", "a//b", "./a",
     "a/./b", "x" * 1025, "bidi\u202eexe"],
)  # fmt: skip
def test_bad_names(name: str) -> None:
    assert member_name_problem(name) is not None


def test_printable_name_escapes_controls_and_caps_length() -> None:
    assert printable_name("a\x1b[31mb") == "a\\x1b[31mb"
    assert len(printable_name("x" * 500)) == 120


def test_limits_defaults_and_env() -> None:
    assert ReaderLimits.from_env({}) == ReaderLimits()
    assert ReaderLimits().max_total_bytes == 20 * GiB
    limits = ReaderLimits.from_env(
        {"BUNDLER_MAX_MEMBERS": "10", "BUNDLER_MAX_TOTAL_BYTES": "2GiB",
         "BUNDLER_MAX_MEMBER_BYTES": "512M", "BUNDLER_MAX_RATIO": "50.5"}
    )  # fmt: skip
    assert limits.max_members == 10
    assert limits.max_total_bytes == 2 * GiB
    assert limits.max_member_bytes == 512 << 20
    assert limits.max_ratio == 50.5


@pytest.mark.parametrize(
    ("var", "value"),
    [
        ("BUNDLER_MAX_MEMBERS", "lots"),
        ("BUNDLER_MAX_RATIO", "-1"),
        ("BUNDLER_MAX_TOTAL_BYTES", "0"),
    ],
)
def test_bad_limits_are_usage_errors(var: str, value: str) -> None:
    with pytest.raises(UsageError, match=var):
        ReaderLimits.from_env({var: value})


def test_the_ratio_rule_and_how_a_refusal_shows_the_ratio() -> None:
    """One rule for reader and writer: over the floor and past the limit. A ratio just past
    the limit is not shown rounded down to it ("200:1 (limit 200)" said nothing wrong)."""
    limits = ReaderLimits()
    floor = limits.ratio_floor
    assert ratio_refused(floor, 1, limits) is None  # at the floor: exempt, however it packs
    assert ratio_refused(200 * 84_000, 84_000, limits) is None  # exactly 200:1, over the floor
    assert ratio_refused(floor + 1, 1000, limits) == (floor + 1) / 1000
    assert ratio_text(229.4, 200) == "229"
    assert ratio_text(200.4, 200) == "200.4"
    assert ratio_text(200.04, 200) == "200.04"


@given(st.lists(st.binary(max_size=300)), st.integers(min_value=1, max_value=64))
def test_rechunk_keeps_bytes_and_sizes(chunks: list[bytes], size: int) -> None:
    pieces = list(rechunk(chunks, size))
    assert b"".join(pieces) == b"".join(chunks)
    assert all(len(p) == size for p in pieces[:-1])
    assert all(0 < len(p) <= size for p in pieces)


def test_public_names_are_exported() -> None:
    import bundler.archive as archive

    assert sorted(archive.__all__) == archive.__all__
    missing = [name for name in archive.__all__ if not hasattr(archive, name)]
    assert missing == []
