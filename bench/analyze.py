"""Benchmark: analyzing a large bundle costs about one decompression, in bounded memory.

Builds (once, cached under ``bench/out/``) a sealed bundle of about ``--size-mb``
megabytes, mostly worker and server logs, with the real archive writer. Then,
each in a fresh child process so ``ru_maxrss`` is that child's own peak:

* **decompress** — open the bundle with the reader and stream every member
  (decrypt + inflate + the reader's own checks): the floor;
* **analyze (CLI)** — ``bundler analyze BUNDLE --format json``, exactly what a
  support engineer runs (generic rules; members the rules never read are
  verified by the final integrity pass);
* **analyze (+log parser)** — the library entry point with a profile whose
  log parser reads every log (``grep_lines``: literal prefilter over whole
  chunks, regex on the hits), the shape of a real product parser: the logs are
  read once, for parsing and verification together.

Target (task): analyze <= 1.5x decompress, memory bounded (independent of
bundle size). Run: ``.venv/bin/python bench/analyze.py [--size-mb 1024]``.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

OUT = ROOT / "bench" / "out"
PASSWORD_ENV = "BUNDLER_BENCH_PASSWORD"  # noqa: S105 (a variable name)
PASSWORD = "bench-password-not-secret"  # noqa: S105 (a throwaway benchmark bundle)
LOGS = 8


def _log_lines(seed: int, size: int) -> Iterator[bytes]:
    """Flux-shaped log text of about ``size`` bytes, varied enough to compress like real logs."""
    rng = random.Random(seed)
    kinds = [
        "flux.server - INFO - Execution {x} claimed by worker w{w}",
        "flux.worker - INFO - Execution Claimed - etl v3 - {x}",
        "flux.worker - INFO - Execution COMPLETED - etl v3 - {x}",
        "flux.security.auth_service - WARNING - Auth disabled — request treated as admin",
        "flux.server - WARNING - Worker w{w} missed heartbeat, marked STALE (grace period: 30s)",
        "flux.server - WARNING - Worker w{w} evicted (stale for >30s)",
        "flux.worker - WARNING - Connection lost (ConnectError: All connection attempts "
        "failed). Reconnecting in {d:.1f}s...",
    ]
    weights = [30, 30, 30, 60, 1, 1, 1]
    produced, second = 0, 0
    batch: list[str] = []
    while produced < size:
        second += rng.random() < 0.05  # about 20 lines a second
        stamp = (
            f"2026-11-29 {(second // 3600) % 24:02d}:{(second // 60) % 60:02d}:{second % 60:02d}"
        )
        kind = rng.choices(kinds, weights)[0]
        line = f"{stamp} - " + kind.format(
            x=f"{rng.getrandbits(128):032x}", w=rng.randint(1, 40), d=rng.random() * 60
        )
        batch.append(line)
        produced += len(line) + 1
        if len(batch) >= 4096:
            yield ("\n".join(batch) + "\n").encode()
            batch = []
    if batch:
        yield ("\n".join(batch) + "\n").encode()


def build(size_mb: int) -> Path:
    """Write (or reuse) the benchmark bundle."""
    from bundler.archive import BundleBuilder, Sealing
    from tests.support.evidence import healthy_fleet

    path = OUT / f"analyze-{size_mb}mb.zip"
    if path.exists():
        return path
    OUT.mkdir(parents=True, exist_ok=True)
    per_log = size_mb * (1 << 20) // LOGS
    started = time.perf_counter()
    fleet = healthy_fleet()
    source = fleet.source()
    with BundleBuilder(path, sealing=Sealing.with_password(PASSWORD)) as builder:
        for name in source.names():
            builder.add(name, source.read_bytes(name), media_type="application/json")
        for index in range(LOGS):
            builder.add(
                f"hosts/h{index + 1:02d}/logs/1.log",
                _log_lines(index, per_log),
                media_type="text/plain",
            )
        builder.finalize(profile="bench")
    print(
        f"built {path.name}: {path.stat().st_size / 2**20:.0f} MiB on disk "
        f"in {time.perf_counter() - started:.1f}s",
        file=sys.stderr,
    )
    return path


# --- what each child runs -----------------------------------------------------------------


def child_decompress(path: Path) -> None:
    from bundler.archive import open_bundle
    from bundler.cli.options import OpenSecrets

    total = 0
    with open_bundle(path, OpenSecrets(password_env=PASSWORD_ENV)) as reader:
        for name in reader.names():
            for chunk in reader.iter_chunks(name):
                total += len(chunk)
    print(json.dumps({"bytes": total}))


NEEDLES = (b"evicted", b"marked STALE", b"Connection lost")
"""What a Flux-like parser looks for first: a few literals, scanned at memory speed."""
EVICTED = re.compile(r"^(\S+ \S+) - flux\.server - WARNING - Worker (\S+) evicted")


def child_analyze_with_parser(path: Path) -> None:
    from datetime import UTC, datetime

    from bundler.analyze.api import EvidenceSet, TimelineEvent
    from bundler.analyze.engine import analyze
    from bundler.analyze.opening import open_bundle
    from bundler.cli.options import OpenSecrets
    from bundler.source import grep_lines

    @functools.lru_cache(maxsize=4096)
    def stamp(text: str) -> datetime:  # logs repeat a second many times: parse it once
        return datetime.strptime(text, "%Y-%m-%d %H:%M:%S").replace(tzinfo=UTC)

    class LogReadingProfile:
        name, title = "bench", "bench"

        def parse_logs(self, evidence: EvidenceSet) -> Iterator[TimelineEvent]:
            for member in evidence.source.names():
                if not member.endswith(".log"):
                    continue
                for number, text in grep_lines(evidence.source, member, NEEDLES):
                    match = EVICTED.match(text)
                    if match:
                        at = stamp(match[1])
                        yield TimelineEvent(
                            kind="evicted",
                            member=member,
                            line=number,
                            text=text,
                            at=at,
                            worker=match[2],
                        )

        def rules(self) -> list:  # type: ignore[type-arg]
            return []

    with open_bundle(path, OpenSecrets(password_env=PASSWORD_ENV)) as opened:
        report = analyze(opened.evidence(), profile=LogReadingProfile())  # type: ignore[arg-type]
        report.bundle.integrity = opened.integrity()
    print(
        json.dumps({"verdict": report.verdict.value, "integrity": report.bundle.integrity.status})
    )


# --- the parent: run each child, time it, read its own rusage ------------------------------


def measure(argv: list[str]) -> dict[str, float | str]:
    """Run ``argv`` as a child; wall time, and that child's own CPU time and peak RSS."""
    env = {**os.environ, PASSWORD_ENV: PASSWORD}
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        started = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=out, stderr=err, env=env)
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - started
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode not in (0, 1, 3):
            err.seek(0)
            raise SystemExit(f"{argv} failed ({proc.returncode}): {err.read()[-2000:]!r}")
    return {
        "seconds": seconds,
        "cpu": usage.ru_utime + usage.ru_stime,
        "maxrss_mib": usage.ru_maxrss / 1024,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size-mb", type=int, default=1024)
    parser.add_argument("--repeat", type=int, default=5, help="runs per measurement (best kept)")
    parser.add_argument(
        "--child", choices=["build", "decompress", "parser"], help=argparse.SUPPRESS
    )
    parser.add_argument("--bundle", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child == "decompress":
        return child_decompress(args.bundle)
    if args.child == "parser":
        return child_analyze_with_parser(args.bundle)
    if args.child == "build":
        build(args.size_mb)
        return None
    # Build in a child: on Linux a child's ru_maxrss starts at its parent's RSS at fork,
    # so the parent that spawns the measured children must stay small.
    subprocess.run(
        [sys.executable, __file__, "--size-mb", str(args.size_mb), "--child", "build"], check=True
    )
    path = OUT / f"analyze-{args.size_mb}mb.zip"
    me = [sys.executable, __file__, "--bundle", str(path)]
    runs = {
        "decompress": [*me, "--child", "decompress"],
        "analyze (CLI)": [
            sys.executable,
            "-m",
            "bundler",
            "analyze",
            str(path),
            "--format",
            "json",
            "--password-env",
            PASSWORD_ENV,
        ],
        "analyze (+log parser)": [*me, "--child", "parser"],
    }
    samples: dict[str, list[dict[str, float | str]]] = {label: [] for label in runs}
    for _ in range(args.repeat):  # interleaved, so a busy moment hurts every run alike
        for label, argv in runs.items():
            samples[label].append(measure(argv))
    best = {label: min(s, key=lambda r: float(r["cpu"])) for label, s in samples.items()}
    wall = {label: min(float(r["seconds"]) for r in s) for label, s in samples.items()}
    base_cpu, base_wall = float(best["decompress"]["cpu"]), wall["decompress"]
    print(
        f"bundle: {path.name} ({path.stat().st_size / 2**20:.0f} MiB compressed, "
        f"~{args.size_mb} MiB of members); best of {args.repeat} interleaved runs"
    )
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(f"{'run':<24}{'cpu s':>8}{'x':>7}{'wall s':>9}{'x':>7}{'max RSS MiB':>13}")
    for label, r in best.items():
        cpu = float(r["cpu"])
        print(
            f"{label:<24}{cpu:>8.2f}{cpu / base_cpu:>7.2f}{wall[label]:>9.2f}"
            f"{wall[label] / base_wall:>7.2f}{float(r['maxrss_mib']):>13.0f}"
        )


if __name__ == "__main__":
    main()
