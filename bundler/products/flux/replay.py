"""The Flux CLI commands worth trying against ``bundler serve``, filled from what was captured.

These are the commands a Flux engineer reaches for first (Flux's *Worker
observability* page and the observed CLI): each one reads only routes doctor
collects, so every one of them is answered from the bundle.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence
from urllib.parse import parse_qsl, unquote

_WORKER = re.compile(r"^/workers/([^/]+)$")
_EXECUTION = re.compile(r"^/executions/([^/]+)$")


def replay_commands(url: str, captured: Sequence[tuple[str, str]]) -> list[str]:
    """``flux ...`` lines for a server at ``url``; ``captured`` is (path, query) of each route."""
    worker = _first(_WORKER, captured)
    execution = _first(_EXECUTION, captured, detailed=True)
    option = f"--server-url {url}"
    lines = [f"flux worker list {option}", f"flux worker list --format json {option}"]
    if worker is not None:
        lines.append(f"flux worker show {shlex.quote(worker)} {option}")
    if execution is not None:
        lines.append(f"flux execution show {shlex.quote(execution)} --detailed {option}")
    lines.append(f"flux health {option}")
    return lines


def _first(
    pattern: re.Pattern[str], captured: Sequence[tuple[str, str]], *, detailed: bool = False
) -> str | None:
    for path, query in captured:
        match = pattern.match(path)
        if match and (not detailed or ("detailed", "true") in parse_qsl(query)):
            return unquote(match.group(1))
    return None
