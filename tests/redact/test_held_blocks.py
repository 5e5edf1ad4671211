"""A block read with its header (a ``COPY``'s rows, a printed table) is read whole, wherever
the stream's rounds fall.

Two ways the rows of such a block lost their header, present since the ``COPY`` rule came:

* the stream's view stopped growing at two chunks, so a block longer than that was held
  until the stream gave up holding (32 MiB later) and written without its hits: a
  ``pg_dump`` whose users table ran past two megabytes, followed by the rest of the dump,
  kept every password, and `bundler review` called it clean;
* a block that ended within the stream's overlap of a view's end had its last rows written
  by the next round, which scans them again without the header in sight.
"""

from __future__ import annotations

import pytest

from redactors import BundleRedactor, Policy, stream
from redactors.rules import BLOCK_MARGIN
from tests.support.redaction import reviews_clean

_S = "Qm7rT5vWxK29pLz4"
SMALL = Policy(chunk_size=4096, overlap=512)


def _copy(rows: int) -> str:
    body = "".join(f"{i}\tuser{i:05d}\t{_S}{i:05d}\n" for i in range(rows))
    return "COPY public.users (id, login, password) FROM stdin;\n" + body + "\\.\n"


def _psql(rows: int) -> str:
    body = "".join(f" {i:6d} | user{i:05d} | {_S}{i:05d}\n" for i in range(rows))
    return "     id | username  | password\n--------+-----------+----------\n" + body + "(n rows)\n"


def _tail(lines: int) -> str:
    return "".join(f"2026-12-07 INFO worker w{i % 7} heartbeat ok\n" for i in range(lines))


def _redact(data: bytes, policy: Policy | None = None, chunk: int = 1 << 16) -> bytes:
    redactor = BundleRedactor(policy or Policy(), key=b"k" * 32)
    pieces = [data[i : i + chunk] for i in range(0, len(data), chunk)]
    return b"".join(redactor.transform("dump.sql", pieces))


@pytest.mark.parametrize("block", [_copy, _psql])
def test_a_block_longer_than_the_view_followed_by_more_than_the_stream_holds(
    block, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The view widens while a rule holds a block, so the block is read before the stream
    gives up holding (its limit made small here, with the chunks, to keep the test quick)."""
    monkeypatch.setattr(stream, "MAX_PENDING", 256 << 10)
    data = (block(3000) + _tail(12000)).encode()
    assert len(data) > 2 * stream.MAX_PENDING
    out = _redact(data, SMALL, chunk=4096)
    assert _S.encode() not in out
    assert out.count(b"\n") == data.count(b"\n")


@pytest.mark.parametrize("block", [_copy, _psql])
def test_a_block_ending_anywhere_near_a_round_boundary(block) -> None:
    """Blocks ending at every line of the last few kilobytes before a round's cut."""
    tail = _tail(400)
    for rows in range(100, 260, 3):
        data = (block(rows) + tail).encode()
        out = _redact(data, SMALL, chunk=1000)
        assert _S.encode() not in out, rows


def test_review_refuses_the_long_dump_and_passes_its_redaction() -> None:
    """The gate reads with the same stream, at its real sizes: a 2.3 MB users table, then
    more of the dump than the stream ever holds (36 MB). Before, review called it clean."""
    data = (_copy(70000) + _tail(900000)).encode()
    assert len(data) > 2 * stream.CHUNK + stream.MAX_PENDING
    assert not reviews_clean("flux-db.sql", data)
    assert reviews_clean("flux-db.sql", _redact(data, chunk=1 << 20))


def test_no_stream_overlap_beyond_what_a_held_block_allows() -> None:
    assert Policy().overlap <= BLOCK_MARGIN
    with pytest.raises(ValueError, match="overlap"):
        _redact(b"x\n", Policy(overlap=BLOCK_MARGIN + 1))
