"""``grep_lines``: the fast path for log parsers agrees with ``iter_lines`` line for line."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from bundler.source import MemorySource, grep_lines, iter_lines


class SmallChunks(MemorySource):
    """Forces lines to straddle chunk boundaries."""

    size = 7

    def iter_chunks(self, name: str, chunk_size: int = 1 << 20):  # type: ignore[no-untyped-def]
        yield from super().iter_chunks(name, self.size)


def _expected(source: MemorySource, needles: list[bytes]) -> list[tuple[int, str]]:
    words = [n.decode() for n in needles]
    return [(n, t) for n, t in iter_lines(source, "x.log") if any(w in t for w in words)]


def test_finds_matching_lines_with_their_numbers() -> None:
    text = b"a evicted\nb ok\nc STALE and evicted\r\nd ok\ne evicted"
    source = SmallChunks({"x.log": text})
    assert list(grep_lines(source, "x.log", [b"evicted", b"STALE"])) == [
        (1, "a evicted"),
        (3, "c STALE and evicted"),
        (5, "e evicted"),
    ]


def test_nothing_matches() -> None:
    assert list(grep_lines(MemorySource({"x.log": b"a\nb\n"}), "x.log", [b"zzz"])) == []


@settings(max_examples=200, deadline=None)
@given(
    lines=st.lists(
        st.sampled_from(["", "evicted", "STALE x", "plain", "x evicted y", "é\r"]), max_size=40
    ),
    trailing=st.booleans(),
    chunk=st.integers(min_value=1, max_value=40),
)
def test_agrees_with_iter_lines(lines: list[str], trailing: bool, chunk: int) -> None:
    text = "\n".join(lines) + ("\n" if trailing and lines else "")
    source = SmallChunks({"x.log": text.encode()})
    source.size = chunk
    needles = [b"evicted", b"STALE"]
    assert list(grep_lines(source, "x.log", needles)) == _expected(source, needles)
