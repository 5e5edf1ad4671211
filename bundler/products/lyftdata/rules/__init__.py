"""LyftData's own rules: only knowledge specific to LyftData.

Generic rungs (TLS, tokens, heartbeat age, native license codes, placement
verdicts, deployment states, requirement blockers, capacity, canaries) come
from ``bundler.analyze.rules``; these add what only LyftData's behaviour
explains: the server's own clock-skew verdict on leases, a worker that
crash-loops on corrupt SQLite state, and workers without metrics.
"""

from __future__ import annotations

from ....analyze.api import Rule
from .authorization import lease_clock_skew
from .capacity import metrics_not_enabled
from .local_state import corrupt_state_keeps_worker_down
from .state_in_logs import corrupt_state_in_worker_log

RULES: tuple[Rule, ...] = (
    corrupt_state_keeps_worker_down,
    corrupt_state_in_worker_log,
    lease_clock_skew,
    metrics_not_enabled,
)

__all__ = ["RULES"]
