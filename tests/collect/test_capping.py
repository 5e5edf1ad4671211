"""Head + tail caps: bounded output, whole lines, an explicit marker, nothing silently lost."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from bundler.collect.capping import MARKER_PREFIX, HeadTailCapper, cap_bytes


def _lines(count: int) -> bytes:
    """``count`` lines of exactly 10 bytes each."""
    return b"".join(f"line {i:04d}\n".encode() for i in range(count))


def test_under_the_cap_is_kept_verbatim() -> None:
    data = _lines(100)
    capped = cap_bytes(data, 10_000)
    assert capped.content == data
    assert not capped.truncated
    assert capped.kept_lines == 100
    assert capped.omitted_bytes == 0


def test_over_the_byte_cap_keeps_head_and_tail_on_line_boundaries() -> None:
    data = _lines(1000)  # 10 bytes a line
    capped = cap_bytes(data, 2000)
    assert capped.truncated
    text = capped.content.decode()
    lines = text.splitlines()
    assert lines[0] == "line 0000"
    assert lines[-1] == "line 0999"
    markers = [ln for ln in lines if ln.startswith(MARKER_PREFIX)]
    assert len(markers) == 1
    kept = [ln for ln in lines if not ln.startswith(MARKER_PREFIX)]
    assert all(ln.startswith("line ") and len(ln) == 9 for ln in kept)
    # the head is at most a quarter of the budget; together they fill it
    head = lines[: lines.index(markers[0])]
    assert len(head) * 10 <= 500
    assert len(kept) * 10 <= 2000
    assert capped.omitted_bytes == len(data) - len(kept) * 10
    assert capped.omitted_lines == 1000 - len(kept)
    assert f"{capped.omitted_bytes} bytes ({capped.omitted_lines} lines) omitted" in markers[0]


def test_line_cap_keeps_first_quarter_and_last_three_quarters() -> None:
    capped = cap_bytes(_lines(1000), 1_000_000, max_lines=100)
    lines = capped.content.decode().splitlines()
    assert lines[:25] == [f"line {i:04d}" for i in range(25)]
    assert lines[-75:] == [f"line {i:04d}" for i in range(925, 1000)]
    assert lines[25].startswith(MARKER_PREFIX)
    assert capped.kept_lines == 100
    assert capped.omitted_lines == 900


def test_any_chunking_gives_the_same_result() -> None:
    data = _lines(500)
    whole = cap_bytes(data, 1500, 40)
    for size in (1, 7, 64, 4096):
        capper = HeadTailCapper(1500, 40)
        for start in range(0, len(data), size):
            capper.feed(data[start : start + size])
        assert capper.finish() == whole


def test_one_enormous_line_is_bounded() -> None:
    capped = cap_bytes(b"x" * 5_000_000, 10_000)
    assert capped.truncated
    assert len(capped.content) < 10_000 + 300
    assert capped.omitted_bytes >= 5_000_000 - 10_000


def test_skipped_range_makes_the_line_count_unknown_and_orders_the_marker() -> None:
    capper = HeadTailCapper(100)
    capper.feed(b"head 1\nhead 2\n")
    capper.skip(10_000)
    capper.feed(b"tail 1\ntail 2\n")
    capped = capper.finish()
    text = capped.content.decode().splitlines()
    assert text[:2] == ["head 1", "head 2"]
    assert text[2].startswith(MARKER_PREFIX)
    assert "10000 bytes omitted" in text[2]
    assert text[3:] == ["tail 1", "tail 2"]
    assert capped.omitted_lines is None


@settings(max_examples=200, deadline=None)
@given(
    data=st.binary(max_size=3000),
    max_bytes=st.integers(min_value=8, max_value=2000),
    max_lines=st.one_of(st.none(), st.integers(min_value=1, max_value=50)),
)
def test_caps_hold_and_kept_parts_are_prefix_and_suffix(
    data: bytes, max_bytes: int, max_lines: int | None
) -> None:
    capped = cap_bytes(data, max_bytes, max_lines)
    if not capped.truncated:
        assert capped.content == data
        return
    head, _, tail = capped.content.partition(MARKER_PREFIX.encode())
    tail = tail.split(b"\n", 1)[1]
    assert len(head.rstrip(b"\n")) + len(tail) <= max_bytes
    assert data.startswith(head) or data.startswith(head[:-1])
    assert data.endswith(tail)
    assert capped.omitted_bytes + len(tail) + len(head.rstrip(b"\n")) >= len(data) - 1


def test_one_enormous_line_keeps_its_first_and_its_true_last_part() -> None:
    """A compact JSON body over the cap is one line: the head was empty, the tail ~64 KB."""
    data = bytes(range(256)).replace(b"\n", b" ") * 80_000  # ~20 MB, no newline
    cap = 16 * 1024 * 1024
    capper = HeadTailCapper(cap)
    for start in range(0, len(data), 65536):
        capper.feed(data[start : start + 65536])
    capped = capper.finish()
    head, marker, tail = capped.content.split(b"\n", 2)
    assert len(head) == cap // 4
    assert data.startswith(head)
    assert data.endswith(tail)
    assert len(tail) > cap // 2
    assert marker.startswith(MARKER_PREFIX.encode())
    assert f"{len(data) - len(head) - len(tail)} bytes (0 lines) omitted" in marker.decode()
    assert len(capped.content) <= cap


def test_a_capper_stopped_at_the_cap_does_not_claim_the_last_part() -> None:
    capper = HeadTailCapper(2000)
    capper.feed(_lines(300))
    marker = [
        line
        for line in capper.finish(read_to_end=False).content.splitlines()
        if line.startswith(MARKER_PREFIX.encode())
    ]
    assert b"reading stopped at the cap" in marker[0]
    assert b"the first and the last parts are kept" not in marker[0]


@settings(max_examples=200, deadline=None)
@given(
    lengths=st.lists(st.integers(min_value=0, max_value=3000), max_size=40),
    max_bytes=st.integers(min_value=1024, max_value=6000),
    max_lines=st.one_of(st.none(), st.integers(min_value=1, max_value=50)),
    chunk=st.integers(min_value=1, max_value=5000),
)
def test_the_output_marker_included_is_never_over_the_cap(
    lengths: list[int], max_bytes: int, max_lines: int | None, chunk: int
) -> None:
    """A 16 MiB cap plus its marker line was over the readers' 16 MiB ratio floor."""
    data = b"".join(b"x" * n + b"\n" for n in lengths) + b"end"
    capper = HeadTailCapper(max_bytes, max_lines)
    for start in range(0, len(data), chunk):
        capper.feed(data[start : start + chunk])
    capped = capper.finish()
    assert len(capped.content) <= max_bytes
    assert capped == cap_bytes(data, max_bytes, max_lines)
    if capped.truncated:
        assert capped.content.endswith(b"end")
