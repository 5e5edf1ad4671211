"""The answer to one request, from what the bundle captured: pure data, no sockets.

Every answer carries ``X-Bundler-Replay`` so a client (or a person with curl)
can tell a captured answer from one bundler made up:

=================  ======  ===================================================================
``captured``       as      the captured status, content type and (redacted) body
``status-only``    as      doctor got this status but kept no body (e.g. a 404 on ``/metrics``)
``not-collected``  502     doctor asked but got no answer (connection refused, timeout)
``unsound``        502     the member failed verification (checksum, AES), is not this
                           request's captured response (``raw/http/``), or the recorded
                           status or content type cannot be sent as HTTP; never served
``not-captured``   404     doctor never asked this path and query
``refused``        405     a route doctor refuses to call (it changes state, or returns secrets)
``method``         405     any method but GET: the replay is read-only
``bad-request``    400     a request that cannot be parsed: its target (``http://[/workers``),
                   (414,   or, rejected by ``http.server`` itself, its request line, version
                   431,    or headers
                   505)
``misdirected``    421     a ``Host`` that is not this server's (a DNS-rebinding web page)
=================  ======  ===================================================================

A 204 or 304 answer never has a body (HTTP forbids one; a client on a
keep-alive connection would read it as the start of the next answer).
"""

from __future__ import annotations

import json
import posixpath
import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from urllib.parse import unquote, urlsplit

from ..collect.readonly import route_pattern
from .captured import CapturedRoute, route_key

REPLAY_HEADER = "X-Bundler-Replay"
JSON = "application/json"

_HEADER_VALUE = re.compile(r"[\x21-\x7e](?:[\x20-\x7e]{0,1022}[\x21-\x7e])?")
"""Visible ASCII, inner spaces, at most 1024 characters: nothing a header could be split on."""


def clean_header_value(value: str) -> bool:
    """True when ``value`` can go out as a header value unchanged.

    Recorded values (a content type, a collector id) come from the manifest,
    which anyone holding the bundle can edit, or from a real server that sent
    odd bytes: a line break would inject headers, a non-Latin-1 character
    would fail half-way through the answer.
    """
    return _HEADER_VALUE.fullmatch(value) is not None


def bodiless(status: int) -> bool:
    """HTTP statuses that never carry a body (RFC 9110 §6.4.1)."""
    return 100 <= status < 200 or status in (204, 304)


def route_problem(route: CapturedRoute) -> str | None:
    """Why a route's recorded status or content type cannot be replayed as HTTP, or None.

    Checked once when the replay is built, so a bad record answers ``unsound`` with
    its reason instead of sending garbage (``HTTP/1.1 1000``, an injected header).
    """
    path = path_problem(route.path)
    if path is not None:
        return path
    if route.body_problem is not None:
        return route.body_problem
    status = route.status
    if status is not None and not 100 <= status <= 599:
        return f"the recorded status {status} is not an HTTP status (100-599)"
    if status is not None and status < 200:
        return f"the recorded status {status} is interim (1xx): a client would wait for more"
    if route.content_type is not None and not clean_header_value(route.content_type):
        return f"the recorded Content-Type {route.content_type!r} is not a clean header value"
    return None


def path_problem(path: str) -> str | None:
    """Why a recorded request path is not one doctor could have asked, or None.

    Doctor requests only absolute paths without dot segments (the read-only
    guard, :func:`~bundler.collect.readonly.path_violation`). A manifest edited
    to record ``/workers/../admin/secrets``, or a path holding a line break or
    an ESC, would have serve answer a route the product does not have.
    """
    for form in dict.fromkeys((path, unquote(path))):
        if not form.startswith("/") or any(seg in (".", "..") for seg in form.split("/")):
            return f"the recorded path {form!r} is not absolute or has a dot segment"
        if any(unicodedata.category(ch) == "Cc" for ch in form):
            return f"the recorded path {form!r} holds a control character"
    return None


def normalized(path: str) -> str:
    """``path`` decoded, with its dot segments resolved the way a server would."""
    decoded = unquote(path)
    resolved = posixpath.normpath(decoded) if decoded.startswith("/") else decoded
    resolved = "/" + resolved.lstrip("/")  # normpath keeps a leading "//"
    return resolved + "/" if decoded.endswith("/") and resolved != "/" else resolved


@dataclass(frozen=True)
class Reply:
    status: int
    kind: str
    body: bytes
    headers: dict[str, str] = field(default_factory=dict)
    route: CapturedRoute | None = None


class Replay:
    """Answers requests from captured routes; ``bodies`` maps members to their bytes."""

    def __init__(
        self,
        routes: Sequence[CapturedRoute],
        bodies: Mapping[str, bytes],
        refused_routes: Sequence[str] = (),
        unsound: Mapping[str, str] | None = None,
    ) -> None:
        self.routes: dict[tuple[str, tuple[tuple[str, str], ...]], CapturedRoute] = {}
        for route in routes:
            known = self.routes.get(route.key)
            if known is None or (known.member is None and route.member is not None):
                self.routes[route.key] = route
        self._bodies = dict(bodies)
        self._problems = {
            key: problem
            for key, route in self.routes.items()
            if (problem := route_problem(route)) is not None
        }
        self._unsound = dict(unsound or {})
        self._refused = [(r, route_pattern(r)) for r in refused_routes]

    def answer(self, method: str, target: str) -> Reply:
        if method != "GET":
            why = f"{method} is not replayed: a bundle is read-only (only GET is answered)"
            return _problem(405, "method", why, {"Allow": "GET"})
        try:
            parts = urlsplit(target)
        except ValueError as exc:
            # An absolute-form target with a bad host (``http://[/x``): a client error, answered
            # and logged like any other, never an exception that drops the connection.
            return _problem(400, "bad-request", f"the request target cannot be parsed: {exc}", {})
        path = parts.path or "/"
        refused = self.refused_route(path)
        if refused is not None:
            why = (
                f"{path} matches {refused}, a route bundler never calls (it changes state "
                "or returns stored secrets), so no bundle holds it"
            )
            return _problem(405, "refused", why, {"Allow": ""})
        key = route_key(path, parts.query)
        route = self.routes.get(key)
        if route is None:
            return self._not_captured(path, parts.query)
        return self._captured(route, self._problems.get(key))

    def rejected(self, status: int, detail: str) -> Reply:
        """A request ``http.server`` could not read (bad line, too long, HTTP/2.0): its status."""
        return _problem(status, "bad-request", detail, {})

    def misdirected(self, host: str) -> Reply:
        """The answer to a request for another host: no bundle content, whatever the path."""
        why = (
            f"Host {host!r} is not this server: bundler serve answers only requests addressed "
            "to a loopback name or address (or to its --host), so a web page that rebinds "
            "its own name to 127.0.0.1 cannot read the bundle"
        )
        return _problem(421, "misdirected", why, {})

    def refused_route(self, path: str) -> str | None:
        """The refused route ``path`` names: as sent, decoded, or with its dot segments
        resolved (``/workers/x/../w1/connect`` is ``/workers/w1/connect``)."""
        forms = (path, unquote(path), normalized(path))
        for route, pattern in self._refused:
            if any(pattern.match(form) for form in forms):
                return route
        return None

    def _captured(self, route: CapturedRoute, problem: str | None = None) -> Reply:
        headers = {}
        if clean_header_value(route.collector):
            headers["X-Bundler-Collector"] = route.collector
        if route.member is not None and clean_header_value(route.member):
            headers["X-Bundler-Member"] = route.member
        if problem is not None:
            return _problem(502, "unsound", f"{route.shown}: {problem}: not served", headers, route)
        if route.member is not None and route.member in self._unsound:
            why = f"{route.member} failed verification ({self._unsound[route.member]}): not served"
            return _problem(502, "unsound", why, headers, route)
        body = self._bodies.get(route.member) if route.member is not None else None
        if body is not None and route.status is not None:
            if route.truncated:
                headers["X-Bundler-Truncated"] = "true"
            headers["Content-Type"] = route.content_type or JSON
            shown = b"" if bodiless(route.status) else body
            return Reply(route.status, "captured", shown, headers, route)
        if route.status is not None:
            why = f"the server answered HTTP {route.status}; the bundle kept no body" + (
                f" ({route.error})" if route.error else ""
            )
            return _problem(route.status, "status-only", why, headers, route)
        why = f"doctor asked but got no answer: {route.outcome.value}" + (
            f" ({route.error})" if route.error else ""
        )
        return _problem(502, "not-collected", why, headers, route)

    def _not_captured(self, path: str, query: str) -> Reply:
        decoded = unquote(path)
        same_path = sorted(r.shown for r in self.routes.values() if unquote(r.path) == decoded)
        shown = f"{path}?{query}" if query else path
        why = f"{shown} was not captured in this bundle"
        extra = {"captured_for_this_path": same_path} if same_path else {}
        return _problem(404, "not-captured", why, {}, None, extra)


def _problem(
    status: int,
    kind: str,
    detail: str,
    headers: Mapping[str, str],
    route: CapturedRoute | None = None,
    extra: Mapping[str, object] | None = None,
) -> Reply:
    """A JSON body in the shape FastAPI uses (``detail``), so product clients print it.

    A status that never has a body (a status-only 204 or 304) goes out with none.
    """
    if bodiless(status):
        return Reply(status, kind, b"", dict(headers), route)
    body = {"detail": detail, "bundler_replay": kind, **(extra or {})}
    data = (json.dumps(body, indent=2) + "\n").encode()
    return Reply(status, kind, data, {**headers, "Content-Type": JSON}, route)
