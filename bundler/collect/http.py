"""The control plane over HTTP (httpx): read-only GETs, bounded in time and size, retried with care.

Only idempotent GETs exist, so a connection error or a 5xx is retried with
exponential backoff (never past the collector's budget); a read timeout is
not (a slow server would only be slower). Redirects are not followed: a
redirect could lead to another host (carrying the token) or to a route the
read-only guard never saw. Every httpx exception is translated here.
"""

from __future__ import annotations

import ssl
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from .. import __version__
from ..errors import UsageError
from .budget import Budget
from .capping import Capped, HeadTailCapper
from .errors import CollectorTimeout, ConnectFailed, TLSVerifyFailed, TransportError

DEFAULT_ATTEMPTS = 3
DEFAULT_BACKOFF_S = 0.5
CONNECT_TIMEOUT_S = 10.0
RETRY_STATUSES = frozenset(range(500, 600))


@dataclass(frozen=True)
class HttpOptions:
    base_url: str
    token: str | None = field(default=None, repr=False)
    ca_cert: Path | None = None
    insecure: bool = False
    max_connections: int = 16
    attempts: int = DEFAULT_ATTEMPTS
    backoff_s: float = DEFAULT_BACKOFF_S


@dataclass(frozen=True)
class HttpCapture:
    status_code: int
    body: Capped
    content_type: str | None
    attempts: int


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
        headers = {"User-Agent": f"bundler/{__version__}", "Accept": "application/json"}
        if options.token:
            headers["Authorization"] = f"Bearer {options.token}"
        self._client = httpx.Client(
            base_url=str(check_server_url(options.base_url)),
            headers=headers,
            verify=_verify(options),
            follow_redirects=False,
            limits=httpx.Limits(max_connections=options.max_connections),
            transport=transport,
        )

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
        """GET ``path``; returns the final response, whatever its status, after retries."""
        attempt = 0
        while True:
            attempt += 1
            budget.check("sending a request")
            try:
                capture = self._once(path, params, budget, max_bytes, stop_when_over, attempt)
            except (ConnectFailed, TransportError) as exc:
                if attempt >= self.options.attempts:
                    exc.attempts = attempt
                    raise
            else:
                if capture.status_code not in RETRY_STATUSES or attempt >= self.options.attempts:
                    return capture
            budget.sleep(self.options.backoff_s * 2 ** (attempt - 1))

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
        try:
            with self._client.stream("GET", path, params=dict(params), timeout=timeout) as response:
                for chunk in response.iter_bytes():
                    body.feed(chunk)
                    if stop_when_over and body.total > max_bytes:
                        break
                    budget.check("reading the response")
                return HttpCapture(
                    response.status_code,
                    body.finish(),
                    response.headers.get("content-type"),
                    attempt,
                )
        except httpx.ConnectError as exc:
            raise _connect_error(exc) from exc
        except httpx.TimeoutException as exc:
            phase = "connect" if isinstance(exc, httpx.ConnectTimeout) else "response"
            if isinstance(exc, httpx.ConnectTimeout | httpx.PoolTimeout):
                raise ConnectFailed(f"{phase} timed out") from exc
            raise CollectorTimeout(f"{phase} timed out") from exc
        except (httpx.RemoteProtocolError, httpx.ReadError, httpx.WriteError) as exc:
            raise TransportError(f"connection broke: {exc}") from exc
        except httpx.HTTPError as exc:
            raise TransportError(f"HTTP error: {exc}") from exc


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
