"""Doctor's defaults, importable without loading any transport (``--help`` stays fast)."""

from __future__ import annotations

DEFAULT_CONCURRENCY = 16
DEFAULT_TIMEOUT_S = 60.0
DEFAULT_DEADLINE_S = 600.0
DEFAULT_LOG_BYTES = 5_000_000
"""Per log; the kept head and tail (troubleshoot keeps 5 MB of pod logs)."""
DEFAULT_LOG_LINES = 10_000
DEFAULT_API_CONCURRENCY = 8
"""At most this many requests at once against the control plane (``--api-concurrency``; it
may be slow: Flux's GET /workers takes over a second at 200 workers)."""
HTTP_LANE_LIMIT = DEFAULT_API_CONCURRENCY
HOST_LANE_LIMIT = 4
"""At most this many channels at once per host (sshd's MaxSessions defaults to 10)."""
