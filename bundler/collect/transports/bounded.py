"""Every socket wait of a request bounded by the request's budget, not only each wait.

httpx's timeouts are per socket operation: a read timeout of 60 s starts again
with every byte that arrives. A server sending its status line and then one
header byte every half second (or ``103 Early Hints`` forever) was never cut:
the collector's ``--timeout`` was checked only between body chunks, so such a
request held its thread, its API request slot and its connection for as long
as the server liked, long after the watchdog had given the collector up.

Here the network backend httpcore opens connections with is wrapped: each
connect, TLS handshake, read and write waits at most what the calling
request's budget has left, and raises httpcore's own timeout once it is spent,
which httpx and the transport translate as they do any timeout. The budget is
the calling thread's (sync httpx runs a request, its body included, on the
thread that sent it), set by :func:`within` around the request.

httpx gives no public way to hand its pools a network backend, so
:func:`bound_pools` sets it on the pools the client built (the default one and
any proxy's from the environment); the tests against trickling servers fail
if a new httpx moves it.
"""

from __future__ import annotations

import contextlib
import ssl
import threading
from collections.abc import Iterable, Iterator
from typing import Any

import httpcore

from ..budget import Budget

_current = threading.local()


@contextlib.contextmanager
def within(budget: Budget) -> Iterator[None]:
    """Bound every socket wait this thread makes, until the block ends, by ``budget``."""
    previous = getattr(_current, "budget", None)
    _current.budget = budget
    try:
        yield
    finally:
        _current.budget = previous


def _bounded(timeout: float | None, expired: type[Exception]) -> float | None:
    """``timeout`` cut to what the thread's budget has left; ``expired`` raised when none is."""
    budget: Budget | None = getattr(_current, "budget", None)
    if budget is None:
        return timeout
    if budget.expired():
        raise expired(f"timed out: {budget.limit()}")
    left = budget.remaining()
    return left if timeout is None else min(timeout, left)


class BoundedStream(httpcore.NetworkStream):
    """A connection whose every wait is cut to the calling request's budget."""

    def __init__(self, stream: httpcore.NetworkStream) -> None:
        self._stream = stream

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._stream.read(max_bytes, _bounded(timeout, httpcore.ReadTimeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._stream.write(buffer, _bounded(timeout, httpcore.WriteTimeout))

    def close(self) -> None:
        self._stream.close()

    def start_tls(
        self,
        ssl_context: ssl.SSLContext,
        server_hostname: str | None = None,
        timeout: float | None = None,
    ) -> httpcore.NetworkStream:
        bounded = _bounded(timeout, httpcore.ConnectTimeout)
        return BoundedStream(self._stream.start_tls(ssl_context, server_hostname, bounded))

    def get_extra_info(self, info: str) -> Any:
        return self._stream.get_extra_info(info)


class BoundedBackend(httpcore.NetworkBackend):
    """Opens :class:`BoundedStream` connections through the backend httpcore would use."""

    def __init__(self, backend: httpcore.NetworkBackend) -> None:
        self._backend = backend

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.NetworkStream:
        bounded = _bounded(timeout, httpcore.ConnectTimeout)
        stream = self._backend.connect_tcp(host, port, bounded, local_address, socket_options)
        return BoundedStream(stream)

    def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.NetworkStream:
        bounded = _bounded(timeout, httpcore.ConnectTimeout)
        return BoundedStream(self._backend.connect_unix_socket(path, bounded, socket_options))

    def sleep(self, seconds: float) -> None:
        self._backend.sleep(seconds)


def bound_pools(transports: Iterable[object]) -> int:
    """Give each transport's httpcore pool a :class:`BoundedBackend`; how many were bound."""
    bound = 0
    for transport in transports:
        pool = getattr(transport, "_pool", None)
        backend = getattr(pool, "_network_backend", None)
        if isinstance(backend, httpcore.NetworkBackend):
            if not isinstance(backend, BoundedBackend):
                pool._network_backend = BoundedBackend(backend)  # type: ignore[union-attr]
            bound += 1
    return bound
