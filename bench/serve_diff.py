"""`bundler serve` start-up and request latency, `bundler diff` wall time, on the committed pair.

::

    .venv/bin/python bench/serve_diff.py                 # 300 requests, 3 diff runs
    .venv/bin/python bench/serve_diff.py --requests 1000 --repeat 5
    .venv/bin/python bench/serve_diff.py --fleet 1000,10000   # diff of N-worker pairs instead

The pair (``samples/pairs``) is a real Flux lab's bundles (about 65 members
each). Serve is started as a user starts it (a child process) and asked over
one keep-alive connection, as the Flux CLI's httpx client does.

``--fleet SIZES`` measures ``bundler diff`` of the before/after pairs of
``bench/fleet_pair.py`` instead (built there once, cached under
``bench/out/diff-fleet/``), Flux and LyftData, text and JSON, each run a fresh
child: wall, CPU and peak RSS (``os.wait4``); beside it ``bundler analyze`` of
each side, the floor (a diff is two analyses and the comparison). A run past
``--timeout`` is stopped and reported as such.
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

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


def child(argv: list[str], timeout: float) -> dict[str, Any]:
    """``python -m bundler ARGV`` in a fresh child: wall, CPU, peak RSS, exit code, stdout size
    (None for all but wall when it was stopped at ``timeout``)."""
    started = time.monotonic()
    with tempfile.TemporaryFile() as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "bundler", *argv], stdout=out, stderr=subprocess.DEVNULL,
            cwd=ROOT, env=os.environ | {"PYTHONPATH": str(ROOT)},
        )  # fmt: skip
        while True:
            pid, status, usage = os.wait4(process.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() - started > timeout:
                process.kill()
                process.wait()
                return {"wall_s": time.monotonic() - started, "stopped": True}
            time.sleep(0.2)
        return {
            "wall_s": time.monotonic() - started,
            "cpu_s": usage.ru_utime + usage.ru_stime,
            "rss_mib": usage.ru_maxrss / 1024,
            "code": os.waitstatus_to_exitcode(status),
            "stdout_bytes": out.tell(),
            "stopped": False,
        }


def fleet_diff(sizes: list[int], products: list[str], formats: list[str], timeout: float) -> None:
    from bench.fleet_pair import pair

    for size in sizes:
        for product in products:
            before, after = pair(product, size)
            for name, argv in [
                *((f"analyze {side}", ["analyze", str(path)]) for side, path in
                  (("BEFORE", before), ("AFTER", after))),
                *((f"diff --format {fmt}", ["diff", str(before), str(after), "--format", fmt])
                  for fmt in formats),
            ]:  # fmt: skip
                done = child(argv, timeout)
                load = Path("/proc/loadavg").read_text().split()[:3]
                if done["stopped"]:
                    print(f"{product} {size:>7,}: {name}: stopped after {done['wall_s']:.0f} s "
                          f"(load {' '.join(load)})", flush=True)  # fmt: skip
                    continue
                print(
                    f"{product} {size:>7,}: {name}: wall {done['wall_s']:.1f} s, CPU "
                    f"{done['cpu_s']:.1f} s, peak RSS {done['rss_mib']:.0f} MiB, exit "
                    f"{done['code']} (load {' '.join(load)})",
                    flush=True,
                )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--fleet", default=None, help="sizes: diff bench/fleet_pair.py's pairs")
    parser.add_argument("--products", default="flux,lyftdata")
    parser.add_argument("--formats", default="text,json")
    parser.add_argument("--timeout", type=float, default=1800, help="seconds per --fleet run")
    args = parser.parse_args()
    if args.fleet:
        sizes = [int(n) for n in args.fleet.split(",")]
        fleet_diff(sizes, args.products.split(","), args.formats.split(","), args.timeout)
        return
    ready, times = serve(args.requests)
    ms = sorted(t * 1000 for t in times)
    print(f"serve: start to URL {ready:.2f} s")
    print(f"serve: GET /workers/w1 x{len(ms)}: median {statistics.median(ms):.2f} ms, "
          f"p95 {ms[int(len(ms) * 0.95) - 1]:.2f} ms")  # fmt: skip
    runs = diff(args.repeat)
    print(f"diff: {len(runs)} runs, median {statistics.median(runs):.2f} s, best {min(runs):.2f} s")


if __name__ == "__main__":
    main()
