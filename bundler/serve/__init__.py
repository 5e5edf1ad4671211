"""``bundler serve``: the control-plane API captured in a bundle, answered read-only.

A support engineer's reflex is the product's own client (``flux worker list``);
this package lets that client run against a bundle as if it were the server.
Three modules, lowest first:

* :mod:`.captured` — which requests doctor made and what came back, read from
  the manifest (``CollectorOutcome.http``) or, for bundles written before that
  was recorded, reconstructed from the profile's plan (:mod:`.reconstruct`).
* :mod:`.replay` — the answer to one request, as data (no sockets): the
  captured status, content type and (redacted) body; 404 ``not-captured``;
  405 for routes doctor refuses to call and for every method but GET.
* :mod:`.server` — a stdlib ``ThreadingHTTPServer`` around it, a request log (escaped),
  the loopback-only binding rule and its ``Host`` check (421 for any other host).

Everything is decrypted in memory when the server starts; nothing is written.
"""

from __future__ import annotations

from .captured import CapturedRoute, captured_routes
from .replay import Replay, Reply
from .server import ReplayServer, is_loopback, start_server

__all__ = [
    "CapturedRoute",
    "Replay",
    "ReplayServer",
    "Reply",
    "captured_routes",
    "is_loopback",
    "start_server",
]
