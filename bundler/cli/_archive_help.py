"""Help text shared by the archive commands (exit codes and safety limits, said once)."""

from __future__ import annotations

READ_EPILOG = """\b
Exit codes: 0 ok · 1 a problem was found in the bundle · 2 usage error, or
unreadable / hostile / undecryptable input.

\b
Safety limits (environment variables; sizes accept KiB, MiB, GiB):
  BUNDLER_MAX_MEMBERS=100000       BUNDLER_MAX_TOTAL_BYTES=20GiB
  BUNDLER_MAX_MEMBER_BYTES=8GiB    BUNDLER_MAX_RATIO=200
"""
