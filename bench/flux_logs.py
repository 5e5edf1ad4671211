"""Benchmark: the Flux log parser on a big server log, streamed from disk.

    .venv/bin/python bench/flux_logs.py [--lines 1000000] [--keep]

The log mimics a busy Flux server with auth disabled: most lines are the
``Auth disabled`` warning (as observed: 1321 of 1488), then routine INFO lines
no rule needs, then the state transitions the rules read (STALE, evicted,
claimed, released...). It reports lines/s, MB/s, events found and peak RSS for
``parse_member`` (every line through :class:`LogParser`: what ``doctor``'s
normalizer uses) and for :class:`BlockScanner` (what ``analyze`` uses: routine
lines counted per block, only the rest parsed).
"""

from __future__ import annotations

import argparse
import random
import resource
import tempfile
import time
from pathlib import Path

from bundler.products.flux.logs import BlockScanner, parse_member
from bundler.source import DirectorySource

SPAM = "flux.security.auth_service - WARNING - Auth disabled — request treated as admin (anonymous)"
ROUTINE = [
    "flux.api.workflow_routes - INFO - Received file: workflows.py with size: 2206 bytes:",
    "flux.scheduler_loop - INFO - Scheduler started (poll_interval=30.0s)",
    "flux.api.worker_routes - WARNING - Worker 'w{n}' registered as an additional worker on a "
    "SQLite database. SQLite is supported for single-node mode only",
    "flux.server - INFO - Worker progress for execution {e}",
]
TRANSITIONS = [
    "flux.server - WARNING - Worker w{n} missed heartbeat, marked STALE (grace period: 30s)",
    "flux.server - WARNING - Worker w{n} evicted (stale for >30s)",
    "flux.server - INFO - Unclaimed execution {e} from evicted worker w{n}",
    "flux.api.worker_routes - INFO - Worker w{n} disconnected (remaining: 3)",
    "flux.api.worker_routes - INFO - Worker connected: w{n}",
    "flux.api.worker_routes - INFO - Execution {e} claimed by worker w{n}",
    "flux.api.worker_routes - WARNING - Worker w{n} released execution {e} (state now CREATED); "
    "re-dispatching",
    "flux.api.worker_routes - WARNING - Stale claim for execution {e}: request carries generation "
    "1 but the row is at 2; the execution was reassigned",
]


def write_log(path: Path, lines: int, seed: int = 7) -> int:
    rng = random.Random(seed)
    with path.open("w") as out:
        for i in range(lines):
            hour, minute, second = 10 + i // 3_600_000 % 12, i // 60_000 % 60, i // 1000 % 60
            stamp = f"2026-11-29 {hour:02d}:{minute:02d}:{second:02d}"
            roll = rng.random()
            if roll < 0.88:
                body = SPAM
            else:
                pool = ROUTINE if roll < 0.97 else TRANSITIONS
                body = rng.choice(pool).format(
                    n=rng.randint(1, 50), e=f"{rng.getrandbits(128):032x}"
                )
            out.write(f"{stamp} - {body}\n")
    return path.stat().st_size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--lines", type=int, default=1_000_000)
    parser.add_argument("--keep", action="store_true", help="keep the generated log")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="flux-log-bench-"))
    log = root / "server.log"
    size = write_log(log, args.lines)
    source = DirectorySource(root)
    for label in ("parse_member", "BlockScanner"):
        started = time.perf_counter()
        if label == "parse_member":
            events = sum(1 for _ in parse_member(source, "server.log"))
        else:
            scanner = BlockScanner("server.log")
            events = sum(1 for _ in scanner.scan(source.iter_chunks("server.log")))
            events += sum(scanner.counted.values())
        elapsed = time.perf_counter() - started
        rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(
            f"{label}: {args.lines:,} lines, {size / 1e6:.1f} MB: {elapsed:.2f}s, "
            f"{args.lines / elapsed:,.0f} lines/s, {size / 1e6 / elapsed:.1f} MB/s, "
            f"{events:,} events (yielded + counted), peak RSS {rss_mb:.0f} MB"
        )
    if not args.keep:
        log.unlink()
        root.rmdir()


if __name__ == "__main__":
    main()
