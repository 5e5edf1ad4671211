"""Fan-out benchmark: wall time and peak RSS of ``bundler doctor`` over 1, 16 and 64 SSH targets.

Targets are aliases in a generated ssh_config spread round-robin over a few
real sshd instances on 127.0.0.1 (each alias is a separate SSH connection,
handshake and session, exactly like a separate host). Each target gets the
engine's full host collection: connect, clock, sysinfo and one log file.
Every run is a fresh ``python -m bundler doctor`` child process; its peak
RSS comes from ``os.wait4`` (that child only).

Criteria (from the collection task): 64 targets at concurrency 16 take at
most 3x the wall time of one target, and peak RSS stays flat as targets grow.

    python bench/fanout.py                      # 1, 16, 64 targets, 3 runs each
    python bench/fanout.py --targets 1,64 --repeat 5 --bundle
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.support.sshd import SshLab  # noqa: E402

RSS_FLAT_FACTOR = 1.25
"""'Flat': the largest run's peak RSS within 25% of the single-target run's."""


def write_log(path: Path, kib: int) -> None:
    line = (
        "2026-01-01 12:00:00 - flux.worker - INFO - Execution Claimed - wf v1 - 0123456789abcdef\n"
    )
    path.write_text(line * max(1, kib * 1024 // len(line)))


def write_inventory(path: Path, count: int, log: Path) -> None:
    hosts = "".join(
        f"  - address: t{i:03d}\n    role: worker\n    logs: [{{file: {log}}}]\n"
        for i in range(1, count + 1)
    )
    path.write_text("hosts:\n" + hosts)


def run_once(args: list[str], env: dict[str, str], work: Path) -> tuple[float, int, int, dict]:
    """Wall seconds, peak RSS (KiB), exit code and a summary of one child run.

    The summary is doctor's collection summary (``--json`` without an analyzer), or,
    once the analyzer prints the verdict instead, the counts from the stderr summary line.
    """
    started = time.perf_counter()
    with (work / "stderr.txt").open("w+") as errors:
        child = subprocess.Popen(
            [sys.executable, "-m", "bundler", "doctor", *args],
            stdout=subprocess.PIPE,
            stderr=errors,
            env=env,
        )
        assert child.stdout is not None
        output = child.stdout.read()
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - started
        errors.seek(0)
        counts = re.search(r"collected (\d+) of (\d+) collectors", errors.read())
    document = json.loads(output) if output.strip() else {}
    summary = document if "collected" in document else {}
    if counts:
        summary.update(collected=int(counts[1]), total=int(counts[2]))
    summary["cpu_s"] = usage.ru_utime + usage.ru_stime
    return wall, usage.ru_maxrss, os.waitstatus_to_exitcode(status), summary


def _collection_seconds(summary: dict) -> float:
    """Collection time inside the process (the summary's start and finish), without start-up."""
    from datetime import datetime

    started = datetime.fromisoformat(summary["started_at"].replace("Z", "+00:00"))
    finished = datetime.fromisoformat(summary["finished_at"].replace("Z", "+00:00"))
    return (finished - started).total_seconds()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--targets", default="1,16,64")
    parser.add_argument(
        "--instances", type=int, default=8, help="sshd processes behind the aliases"
    )
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--log-kib", type=int, default=256, help="size of each target's log file")
    parser.add_argument(
        "--bundle", action="store_true", help="also seal a bundle (needs the builder)"
    )
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "out" / "fanout.json")
    options = parser.parse_args()
    counts = [int(n) for n in options.targets.split(",")]
    work = Path(tempfile.mkdtemp(prefix="bundler-fanout-"))
    try:
        return _measure(options, counts, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _measure(options: argparse.Namespace, counts: list[int], work: Path) -> int:
    results: dict[int, dict[str, float]] = {}
    with SshLab(work / "lab") as lab:
        instances = [lab.start(f"s{i}") for i in range(options.instances)]
        for instance in instances:
            lab.trust(instance)
        for i in range(1, max(counts) + 1):
            lab.add_host(f"t{i:03d}", instances[(i - 1) % len(instances)])
        log = work / "app.log"
        write_log(log, options.log_kib)
        env = {**os.environ, "PYTHONPATH": str(ROOT), "BENCH_PW": "bench-password-123"}
        env.pop("SSH_AUTH_SOCK", None)
        samples: dict[int, list[tuple[float, int, dict]]] = {count: [] for count in counts}
        for count in counts:
            write_inventory(work / f"inv{count}.yaml", count, log)
        # Interleaved (1, 16, 64, 1, 16, 64, ...): on a shared machine the load drifts, and
        # a ratio of runs made minutes apart would measure the neighbours, not bundler.
        for run in range(options.repeat):
            for count in counts:
                args = [
                    "--inventory", str(work / f"inv{count}.yaml"),
                    "--ssh-config", str(lab.ssh_config), "--known-hosts", str(lab.known_hosts),
                    "--concurrency", str(options.concurrency), "--json",
                ]  # fmt: skip
                if options.bundle:
                    zip_path = work / f"b{count}-{run}.zip"
                    args += ["--bundle", str(zip_path), "--password-env", "BENCH_PW"]
                wall, peak, code, summary = run_once(args, env, work)
                # 3: inconclusive, the live verdict without a profile (once the analyzer is in)
                if code not in (0, 3) or summary.get("collected") != summary.get("total"):
                    print(f"run failed: {count} targets, exit {code}: {summary.get('problems')}")
                    return 1
                samples[count].append((wall, peak, summary))
        for count in counts:
            walls = [w for w, _, _ in samples[count]]
            rss = [p for _, p, _ in samples[count]]
            collect = [_collection_seconds(s) for _, _, s in samples[count] if "started_at" in s]
            cpu = statistics.median(s["cpu_s"] for _, _, s in samples[count])
            results[count] = {
                "wall_s_median": statistics.median(walls),
                "wall_s_min": min(walls),
                "collection_s_median": statistics.median(collect) if collect else float("nan"),
                "peak_rss_mib_max": max(rss) / 1024,
                "doctor_cpu_s_median": cpu,
                "collectors": float(samples[count][0][2]["total"]),
            }
            print(
                f"{count:>3} targets: wall median {results[count]['wall_s_median']:.2f}s "
                f"(min {min(walls):.2f}s; "
                f"collection {results[count]['collection_s_median']:.2f}s), "
                f"peak RSS {max(rss) / 1024:.1f} MiB, "
                f"{int(results[count]['collectors'])} collectors, doctor CPU {cpu:.2f}s"
            )
    base, top = results[min(counts)], results[max(counts)]
    ratio = top["wall_s_median"] / base["wall_s_median"]
    collect_ratio = top["collection_s_median"] / base["collection_s_median"]
    rss_ratio = top["peak_rss_mib_max"] / base["peak_rss_mib_max"]
    verdict = {
        "wall_ratio": round(ratio, 2),
        "wall_ratio_ok": ratio <= 3.0,
        "collection_ratio": round(collect_ratio, 2),
        "rss_ratio": round(rss_ratio, 2),
        "rss_flat": rss_ratio <= RSS_FLAT_FACTOR,
    }
    print(
        f"{max(counts)} vs {min(counts)} targets: wall x{ratio:.2f} "
        f"({'ok' if verdict['wall_ratio_ok'] else 'OVER'} <= 3.0; collection alone "
        f"x{collect_ratio:.2f}), peak RSS x{rss_ratio:.2f} "
        f"({'flat' if verdict['rss_flat'] else 'GROWS'} <= {RSS_FLAT_FACTOR})"
    )
    options.out.parent.mkdir(parents=True, exist_ok=True)
    options.out.write_text(
        json.dumps(
            {"options": vars(options) | {"out": str(options.out)}, "results": results, **verdict},
            indent=2,
        )
    )
    return 0 if verdict["wall_ratio_ok"] and verdict["rss_flat"] else 1


if __name__ == "__main__":
    sys.exit(main())
