"""What to try against ``bundler serve`` for a LyftData bundle: ``curl`` on the contract routes.

LyftData's own CLI (``lyftdata workers status`` ...) talks to the worker host,
not to the control-plane API, so the useful client here is any HTTP client;
the routes are the ones the serviceability guide's evidence list starts from.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence

FIRST = ("/api/workers", "/api/jobs", "/api/deployments", "/api/canaries", "/api/health")


def replay_commands(url: str, captured: Sequence[tuple[str, str]]) -> list[str]:
    paths = {path for path, query in captured if not query}
    chosen = [p for p in FIRST if p in paths] or sorted(paths)[:5]
    return [f"curl -s {shlex.quote(url + path)}" for path in chosen]
