"""The control plane over HTTP (httpx): read-only GETs, bounded in time and size, retried with care.

Only idempotent GETs exist, so a connection error or a 5xx is retried with
exponential backoff (never past the collector's budget); a read timeout is
not (a slow server would only be slower). A 429 or 503 with ``Retry-After``
is waited for and retried, by every request at once, within a bound
(:mod:`.politeness`), and at most ``api_concurrency`` requests are in flight.
Redirects are not followed: a redirect could lead to another host (carrying
the token) or to a route the read-only guard never saw. Every httpx exception is translated here.

A compressed body is decoded here, not by httpx, a bounded piece at a time
(:mod:`.decoding`), so the size cap and the budget hold however far it expands.
Every socket wait of a request (connect, headers, body) is cut to what the
collector's budget has left (:mod:`.bounded`): httpx's own timeouts start again
with each byte, so a server trickling its headers would never be cut.
"""

from __future__ import annotations

import ssl
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

import httpx

from ... import __version__
from ...errors import UsageError
from ..budget import Budget
from ..capping import Capped, HeadTailCapper
from ..errors import (
    BadContentEncoding,
    CollectError,
    CollectorTimeout,
    ConnectFailed,
    TLSVerifyFailed,
    TransportError,
)
from .bounded import bound_pools, within
from .decoding import ACCEPT_ENCODING, BadEncoding, UnsupportedEncoding, decoded
from .politeness import (
    DEFAULT_MAX_RETRY_AFTER_S,
    THROTTLE_STATUSES,
    ApiUsage,
    Throttle,
    retry_after_seconds,
)

DEFAULT_ATTEMPTS = 3
DEFAULT_BACKOFF_S = 0.5
CONNECT_TIMEOUT_S = 10.0
RETRY_STATUSES = frozenset(range(500, 600)) | {429}


@dataclass(frozen=True)
class HttpOptions:
    base_url: str
    token: str | None = field(default=None, repr=False)
    ca_cert: Path | None = None
    insecure: bool = False
    api_concurrency: int = 8
    """At most this many requests in flight against the control plane."""
    attempts: int = DEFAULT_ATTEMPTS
    backoff_s: float = DEFAULT_BACKOFF_S
    max_retry_after_s: float = DEFAULT_MAX_RETRY_AFTER_S


@dataclass(frozen=True)
class HttpCapture:
    status_code: int
    body: Capped
    content_type: str | None
    attempts: int
    retry_after: str | None = None
    """The response's ``Retry-After`` header (a 429/503 returned with it was not waited for)."""
    waited_s: float = 0.0
    """Seconds this request was held back by Retry-After before its attempts (its own or
    another request's: the gate is shared)."""
    location: str | None = None
    """The response's ``Location`` header: where a redirect (never followed) pointed."""


def check_server_url(url: str) -> httpx.URL:
    """Parse ``--server``; a one-line UsageError if it is not an http(s) URL."""
    try:
        parsed = httpx.URL(url)
    except (httpx.InvalidURL, TypeError) as exc:
        raise UsageError(f"invalid --server URL: {exc}") from exc
    if parsed.scheme not in ("http", "https") or not parsed.host:
        raise UsageError("--server must be an http:// or https:// URL with a host")
    return parsed


def display_url(url: str) -> str:
    """The server URL as recorded in the manifest: no credentials, no query."""
    parsed = check_server_url(url)
    return str(parsed.copy_with(username=None, password=None, query=None, fragment=None))


def _verify(options: HttpOptions) -> ssl.SSLContext | bool:
    if options.insecure:
        return False
    if options.ca_cert is None:
        return True
    try:
        return ssl.create_default_context(cafile=str(options.ca_cert))
    except (OSError, ssl.SSLError) as exc:
        raise UsageError(f"cannot load --ca-cert {options.ca_cert}: {exc}") from exc


class HttpCollector:
    """One httpx client for the whole run (thread-safe, pooled)."""

    def __init__(self, options: HttpOptions, *, transport: httpx.BaseTransport | None = None):
        self.options = options
        self.usage = ApiUsage(max(1, options.api_concurrency), options.max_retry_after_s)
        self._throttle = Throttle(self.usage)
        headers = {
            "User-Agent": f"bundler/{__version__}",
            "Accept": "application/json",
            "Accept-Encoding": ACCEPT_ENCODING,
        }
        if options.token:
            headers["Authorization"] = f"Bearer {options.token}"
        self._client = httpx.Client(
            base_url=str(check_server_url(options.base_url)),
            headers=headers,
            verify=_verify(options),
            follow_redirects=False,
            limits=httpx.Limits(max_connections=self.usage.max_in_flight),
            transport=transport,
        )
        if transport is None:
            bound_pools([self._client._transport, *self._client._mounts.values()])

    def close(self) -> None:
        self._client.close()

    def get(
        self,
        path: str,
        params: Mapping[str, str],
        *,
        budget: Budget,
        max_bytes: int,
        stop_when_over: bool = False,
    ) -> HttpCapture:
        """GET ``path``; returns the final response, whatever its status, after retries.

        A :class:`CollectError` raised here carries ``attempts``, the requests made.
        """
        made, waited = 0, 0.0
        try:
            while True:
                budget.check("sending a request")
                waited += self._throttle.acquire(budget)
                made += 1
                try:
                    capture = self._once(path, params, budget, max_bytes, stop_when_over, made)
                except (ConnectFailed, TransportError):
                    if made >= self.options.attempts:
                        raise
                else:
                    last = made >= self.options.attempts
                    if capture.status_code in THROTTLE_STATUSES and capture.retry_after is not None:
                        delay = retry_after_seconds(capture.retry_after)
                        if delay is not None:
                            if not self._throttle.asked_to_wait(delay, budget, can_retry=not last):
                                return replace(capture, waited_s=waited)
                            continue  # the throttle makes this (and every) request wait
                    if capture.status_code not in RETRY_STATUSES or last:
                        return replace(capture, waited_s=waited)
                finally:
                    self._throttle.release()
                budget.sleep(self.options.backoff_s * 2 ** (made - 1))
        except CollectError as exc:
            exc.attempts = made
            raise

    def _once(
        self,
        path: str,
        params: Mapping[str, str],
        budget: Budget,
        max_bytes: int,
        stop_when_over: bool,
        attempt: int,
    ) -> HttpCapture:
        left = budget.remaining()
        timeout = httpx.Timeout(left, connect=min(CONNECT_TIMEOUT_S, left))
        body = HeadTailCapper(max_bytes)
        answered = False
        try:
            with (
                within(budget),
                self._client.stream("GET", path, params=dict(params), timeout=timeout) as response,
            ):
                answered = True
                encoding = response.headers.get("content-encoding")
                stopped = False
                for chunk in decoded(response.iter_raw(), encoding):
                    body.feed(chunk)
                    if stop_when_over and body.total > max_bytes:
                        stopped = True
                        break
                    budget.check("reading the response")
                return HttpCapture(
                    response.status_code,
                    body.finish(read_to_end=not stopped),
                    response.headers.get("content-type"),
                    attempt,
                    response.headers.get("retry-after"),
                    location=response.headers.get("location"),
                )
        except (UnsupportedEncoding, BadEncoding) as exc:
            raise BadContentEncoding(str(exc)) from exc
        except httpx.ConnectError as exc:
            raise _connect_error(exc) from exc
        except httpx.TimeoutException as exc:
            raise _timeout_error(exc, budget, left, answered=answered) from exc
        except (httpx.RemoteProtocolError, httpx.ReadError, httpx.WriteError) as exc:
            raise TransportError(f"connection broke: {exc}") from exc
        except httpx.HTTPError as exc:
            raise TransportError(f"HTTP error: {exc}") from exc


def _timeout_error(
    exc: httpx.TimeoutException, budget: Budget, left: float, *, answered: bool
) -> CollectError:
    """What a timeout means: a connection not made (retried), or the budget spent on an answer."""
    if isinstance(exc, httpx.ConnectTimeout | httpx.PoolTimeout):
        which = (
            budget.limit()
            if left <= CONNECT_TIMEOUT_S
            else f"after {CONNECT_TIMEOUT_S:g}s (the connect timeout)"
        )
        return ConnectFailed(f"connect timed out: {which}")
    if answered:
        return CollectorTimeout(f"timed out while reading the response: {budget.limit()}")
    return CollectorTimeout(f"response timed out: {budget.limit()}")


def _connect_error(exc: httpx.ConnectError) -> ConnectFailed | TLSVerifyFailed:
    cause: BaseException | None = exc
    while cause is not None:
        if isinstance(cause, ssl.SSLCertVerificationError):
            reason = cause.verify_message or "certificate verify failed"
            return TLSVerifyFailed(
                f"TLS certificate not trusted ({reason}); pass --ca-cert FILE "
                "(or --insecure for a bounded evaluation)"
            )
        if isinstance(cause, ssl.SSLError):
            return ConnectFailed(f"TLS handshake failed: {cause.reason or cause}")
        cause = cause.__cause__ or cause.__context__
    return ConnectFailed(f"cannot connect: {exc}")
