"""Content-Encoding against a real server: decoded a bounded piece at a time, bombs included."""

from __future__ import annotations

import gzip
import tracemalloc
import zlib

import pytest

from bundler.collect.budget import Budget
from bundler.collect.errors import BadContentEncoding
from bundler.collect.transports.http import HttpCollector, HttpOptions
from tests.support.http_server import Reply, ScriptedHTTPServer

MiB = 1 << 20


def _client(url: str) -> HttpCollector:
    return HttpCollector(HttpOptions(url, backoff_s=0.01))


def _gzip_of_zeros(size: int) -> bytes:
    """``size`` zero bytes gzipped, built a MiB at a time (the test never holds them)."""
    packer = zlib.compressobj(9, zlib.DEFLATED, zlib.MAX_WBITS | 16)
    zeros = bytes(MiB)
    parts = [packer.compress(zeros) for _ in range(size // MiB)]
    return b"".join(parts) + packer.flush()


def _get(server: ScriptedHTTPServer, path: str, **kwargs: object) -> object:
    client = _client(server.url)
    try:
        return client.get(path, {}, budget=Budget.start(30), **kwargs)  # type: ignore[arg-type]
    finally:
        client.close()


BODY = b'{"status": "healthy", "version": "2.0.0"}\n' * 2000


@pytest.mark.parametrize(
    ("header", "payload"),
    [
        ("gzip", gzip.compress(BODY)),
        ("x-gzip", gzip.compress(BODY)),
        ("deflate", zlib.compress(BODY)),
        ("deflate", zlib.compress(BODY)[2:-4]),  # raw deflate, no zlib header
        ("gzip, gzip", gzip.compress(gzip.compress(BODY))),
        ("deflate, gzip", gzip.compress(zlib.compress(BODY))),
        ("identity", BODY),
        ("gzip", gzip.compress(BODY[:1000]) + gzip.compress(BODY[1000:])),  # two members
    ],
)
def test_encoded_bodies_are_decoded(
    http_server: ScriptedHTTPServer, header: str, payload: bytes
) -> None:
    http_server.route("/h", Reply(200, payload, headers={"Content-Encoding": header}))
    capture = _get(http_server, "/h", max_bytes=4 * MiB)
    assert capture.body.content == BODY  # type: ignore[attr-defined]
    assert http_server.requests[0].headers["Accept-Encoding"] == "gzip, deflate"


@pytest.mark.parametrize(
    ("header", "payload", "says"),
    [
        ("br", b"\x0b\x02\x80hello\x03", "unsupported Content-Encoding 'br'"),
        ("gzip, compress", gzip.compress(BODY), "unsupported Content-Encoding 'compress'"),
        ("gzip", b"this is not gzip at all", "the gzip body does not decode"),
    ],
)
def test_an_encoding_doctor_cannot_undo_is_refused_in_one_line(
    http_server: ScriptedHTTPServer, header: str, payload: bytes, says: str
) -> None:
    http_server.route("/h", Reply(200, payload, headers={"Content-Encoding": header}))
    with pytest.raises(BadContentEncoding) as raised:
        _get(http_server, "/h", max_bytes=MiB)
    assert says in raised.value.message
    assert "\n" not in raised.value.message
    assert http_server.paths() == ["/h"]  # not retried: it would fail the same way


@pytest.mark.parametrize("stop_when_over", [True, False])
def test_a_stacked_gzip_bomb_is_decoded_within_bounded_memory(
    http_server: ScriptedHTTPServer, stop_when_over: bool
) -> None:
    """64 MiB of zeros gzipped twice is a few hundred bytes on the wire.

    httpx inflated each raw chunk whole (the whole 64 MiB at once, linear in the
    bomb); decoded piece by piece, peak memory is the cap and a few pieces.
    """
    bomb = gzip.compress(_gzip_of_zeros(64 * MiB))
    assert len(bomb) < 1024
    http_server.route("/bomb", Reply(200, bomb, headers={"Content-Encoding": "gzip, gzip"}))
    tracemalloc.start()
    try:
        capture = _get(http_server, "/bomb", max_bytes=MiB, stop_when_over=stop_when_over)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    body = capture.body  # type: ignore[attr-defined]
    assert body.truncated
    assert len(body.content) <= MiB  # the marker line included
    assert peak < 12 * MiB, f"peak traced memory {peak / MiB:.1f} MiB"
    if not stop_when_over:
        assert body.total_bytes == 64 * MiB  # read to the end, never held
