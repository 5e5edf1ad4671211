"""The few server gauges read from Flux's Prometheus ``/metrics`` — to be distrusted.

``flux_workers_active`` is decremented twice per eviction (reaper, then SSE
close) and goes negative; ``flux_execution_queue_depth`` is per process and
restarts at 0 with the server. Bundler never uses them as facts: it keeps
their values only to say, when they disagree with the counted truth, that
they are wrong (dashboards built on them mislead).
"""

from __future__ import annotations

UNTRUSTED_GAUGES = ("flux_workers_active", "flux_execution_queue_depth")


def read_gauges(text: str, names: tuple[str, ...] = UNTRUSTED_GAUGES) -> dict[str, float]:
    """Sum of each named gauge's samples (label sets added together)."""
    found: dict[str, float] = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        name = line.split("{", 1)[0].split(" ", 1)[0]
        if name not in names:
            continue
        try:
            value = float(line.rsplit(" ", 1)[1])
        except (IndexError, ValueError):
            continue
        found[name] = found.get(name, 0.0) + value
    return found
