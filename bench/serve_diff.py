"""`bundler serve` start-up and request latency, `bundler diff` wall time, on the committed pair.

::

    .venv/bin/python bench/serve_diff.py                 # 300 requests, 3 diff runs
    .venv/bin/python bench/serve_diff.py --requests 1000 --repeat 5

The pair (``samples/pairs``) is a real Flux lab's bundles (about 65 members
each). Serve is started as a user starts it (a child process) and asked over
one keep-alive connection, as the Flux CLI's httpx client does.
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from samples.catalog import PASSWORD_ENV, SAMPLE_PASSWORD  # noqa: E402
from samples.pair import AFTER, BEFORE  # noqa: E402

ENV = os.environ | {PASSWORD_ENV: SAMPLE_PASSWORD}


def serve(requests: int) -> tuple[float, list[float]]:
    argv = [sys.executable, "-m", "bundler", "serve", str(AFTER), "--password-env", PASSWORD_ENV]
    started = time.monotonic()
    process = subprocess.Popen(
        argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=ENV, cwd=ROOT,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )  # fmt: skip
    try:
        assert process.stdout is not None
        url = next(line.split()[1] for line in process.stdout if line.startswith("URL: "))
        ready = time.monotonic() - started
        times = []
        with httpx.Client() as client:
            client.get(f"{url}/workers")
            for _ in range(requests):
                t0 = time.perf_counter()
                client.get(f"{url}/workers/w1").raise_for_status()
                times.append(time.perf_counter() - t0)
    finally:
        process.send_signal(signal.SIGINT)
        process.wait(timeout=30)
    return ready, times


def diff(repeat: int) -> list[float]:
    argv = [sys.executable, "-m", "bundler", "diff", str(BEFORE), str(AFTER)]
    runs = []
    for _ in range(repeat):
        t0 = time.monotonic()
        subprocess.run([*argv, "--password-env", PASSWORD_ENV], env=ENV, cwd=ROOT,
                       capture_output=True, check=False)  # fmt: skip
        runs.append(time.monotonic() - t0)
    return runs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    ready, times = serve(args.requests)
    ms = sorted(t * 1000 for t in times)
    print(f"serve: start to URL {ready:.2f} s")
    print(f"serve: GET /workers/w1 x{len(ms)}: median {statistics.median(ms):.2f} ms, "
          f"p95 {ms[int(len(ms) * 0.95) - 1]:.2f} ms")  # fmt: skip
    runs = diff(args.repeat)
    print(f"diff: {len(runs)} runs, median {statistics.median(runs):.2f} s, best {min(runs):.2f} s")


if __name__ == "__main__":
    main()
