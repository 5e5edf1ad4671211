"""One member redacted in segments (in parallel, by ``bundler redact``) equals it redacted whole.

The contract of :class:`redactors.Segment`: a segment that starts at a line
start with the ``overlap`` bytes before it as context, and the segment before
it stopping exactly there, give the bytes and the report lines of one stream
over the whole member, or one of them raises ``SegmentMisaligned`` (a secret
or a held value straddles the cut) and the caller redacts the member whole.
"""

from __future__ import annotations

import random
from functools import cache
from itertools import pairwise

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from redactors import BundleRedactor, Policy, Segment, SegmentMisaligned
from tests.support.redaction import ALNUM, rand

from .corpus import CASES, RSA, RSA_BODY

CHUNK = 4096
OVERLAP = 512
POLICY = Policy(chunk_size=CHUNK, overlap=OVERLAP)
KEY = b"k" * 32


def _text_corpus() -> bytes:
    """Every plain-text corpus file, between ordinary log lines: secrets of every shape."""
    rng = random.Random(7)
    parts: list[bytes] = []
    for case in CASES:
        for name, data in case.files.items():
            raw = data.encode() if isinstance(data, str) else data
            if name.endswith((".log", ".txt", ".conf", ".env", ".sh", ".ini")) and b"\0" not in raw:
                parts.append(raw if raw.endswith(b"\n") else raw + b"\n")
        filler = "".join(
            f"2026-11-30T00:00:{i % 60:02d}Z worker-{rng.randrange(9)} ok step={i}\n"
            for i in range(rng.randrange(20, 120))
        )
        parts.append(filler.encode())
    return b"".join(parts) * 3


TEXT = _text_corpus()


@cache
def _whole(data: bytes) -> tuple[bytes, BundleRedactor]:
    redactor = BundleRedactor(POLICY, key=KEY)
    pieces = [data[i : i + 1000] for i in range(0, len(data), 1000)]
    return b"".join(redactor.transform("app.log", pieces, media_type="text/plain")), redactor


def _in_segments(data: bytes, cuts: list[int]) -> tuple[bytes, BundleRedactor]:
    """Each segment by its own redactor (as a worker process would), merged as bundler does."""
    bounds = [0, *cuts, len(data)]
    coordinator = BundleRedactor(POLICY, key=KEY)
    stored = coordinator.member_name("app.log")
    outputs, lines, previous = [], 0, None
    for start, stop in pairwise(bounds):
        last = stop == len(data)
        segment = Segment(
            context=data[max(0, start - OVERLAP) : start], stop=None if last else stop - start
        )
        worker = BundleRedactor(POLICY, key=KEY)
        worker.adopt_name(stored)
        end = len(data) if last else stop + OVERLAP
        pieces = [data[i : min(i + 1000, end)] for i in range(start, end, 1000)]
        outputs.append(
            b"".join(
                worker.transform_segment(
                    stored, pieces, segment, head=data[:8192], media_type="text/plain"
                )
            )
        )
        if previous is not None and previous.end_context != segment.context:
            raise SegmentMisaligned(
                "a segment began with another context than its predecessor left"
            )
        state = worker.export_member(stored)
        state["segment"] = True
        coordinator.import_member(state, line_offset=lines)
        lines += segment.lines
        previous = segment
    return b"".join(outputs), coordinator


def _line_starts(data: bytes) -> list[int]:
    return [i + 1 for i in range(len(data) - 1) if data[i] == 0x0A]


def _hits(redactor: BundleRedactor) -> list[object]:
    report = redactor.report()
    return [hit.model_dump() for file in report.files for hit in file.hits]


def test_the_corpus_has_secrets_of_every_shape() -> None:
    assert len(TEXT) > 20 * CHUNK
    assert b"-----BEGIN" in TEXT
    assert b"password" in TEXT.lower()


@settings(
    max_examples=40, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
@given(st.lists(st.integers(0, 10**9), min_size=1, max_size=4))
def test_segments_equal_the_whole_member_or_refuse(picks: list[int]) -> None:
    starts = _line_starts(TEXT)
    cuts = sorted({starts[p % len(starts)] for p in picks})
    whole, alone = _whole(TEXT)
    try:
        parts, merged = _in_segments(TEXT, cuts)
    except SegmentMisaligned:
        return
    assert parts == whole
    assert _hits(merged) == _hits(alone)
    assert merged.report().total == alone.report().total


def test_most_line_starts_are_valid_cuts() -> None:
    """Refusing is the exception (a cut inside a multi-line secret), not the rule."""
    starts = _line_starts(TEXT)
    rng = random.Random(3)
    sample = rng.sample(starts, 60)
    whole, _ = _whole(TEXT)
    refused = 0
    for cut in sample:
        try:
            parts, _ = _in_segments(TEXT, [cut])
        except SegmentMisaligned:
            refused += 1
            continue
        assert parts == whole
    assert refused < len(sample) // 4


def test_a_cut_inside_a_private_key_refuses() -> None:
    filler = b"".join(b"2026-11-30 ok line %d\n" % i for i in range(2000))
    data = filler + RSA.encode() + b"\n" + filler
    body_line = data.index(RSA_BODY[len(RSA_BODY) // 2].encode())
    with pytest.raises(SegmentMisaligned):
        _in_segments(data, [body_line])
    whole, _ = _whole(data)
    assert all(line.encode() not in whole for line in RSA_BODY)


@pytest.mark.parametrize("key", [b"password:\n  ", b"client_secret: >-\n  "])
def test_a_cut_between_a_key_and_its_value_on_the_next_line_is_caught(key: bytes) -> None:
    """The key is in the next segment's context: it still explains the value."""
    secret = "Next-Line-" + rand(ALNUM, 12, "nl")
    filler = b"".join(b"2026-11-30 ok line %d\n" % i for i in range(2000))
    data = filler + key + secret.encode() + b"\n" + filler
    cut = data.index(secret.encode()) - 2
    try:
        parts, _ = _in_segments(data, [cut])
    except SegmentMisaligned:
        return
    whole, _ = _whole(data)
    assert parts == whole
    assert secret.encode() not in parts


def test_line_numbers_of_later_segments_count_from_the_member_start() -> None:
    token = "ghp_" + rand(ALNUM, 36, "seg-line")
    lines = [f"2026-11-30 ok line {i}\n" for i in range(3000)]
    lines[2500] = f"using token {token}\n"
    data = "".join(lines).encode()
    cut = len("".join(lines[:1000]).encode())
    _, merged = _in_segments(data, [cut])
    hits = [hit for file in merged.report().files for hit in file.hits]
    assert [hit.line for hit in hits] == [2501]


def test_a_segment_whose_text_ends_early_refuses() -> None:
    data = b"".join(b"ok line %d\n" % i for i in range(3000))
    worker = BundleRedactor(POLICY, key=KEY)
    segment = Segment(stop=len(data) + 100)
    with pytest.raises(SegmentMisaligned):
        b"".join(worker.transform_segment("app.log", [data], segment, head=data[:8192]))


@pytest.mark.parametrize(
    ("name", "head", "size", "expected"),
    [
        ("app.log", b"2026-11-30 ok\n", 10**8, True),
        ("app.log", b"\x1f\x8b\x08\x00" + b"\0" * 20, 10**8, False),
        ("app.log", b"\xff\xfe" + "text".encode("utf-16-le"), 10**8, False),
        ("config.json", b'{"a": 1}\n', 1000, False),
        ("events.json", b'{"a": 1}\n', 10**9, True),
        ("listing.json", b'{"a": 1}\n', 40 << 20, False),  # walked whole: it must be parsed
        ("listing.yaml", b"a: 1\n", 40 << 20, False),
        ("settings.toml", b"a = 1\n", 40 << 20, True),  # TOML is parsed whole: up to 16 MiB
        (".flux/bootstrap-token", b"ok\n", 10**8, False),
    ],
)
def test_which_members_can_be_segmented(name: str, head: bytes, size: int, expected: bool) -> None:
    redactor = BundleRedactor(key=KEY)
    media = "application/json" if name.endswith(".json") else "text/plain"
    assert redactor.can_segment(name, head, media, size) is expected
