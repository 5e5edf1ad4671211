"""Benchmark: analyzing a large Flux bundle costs about one decompression, in bounded memory.

Builds (once, cached under ``bench/out/``) a sealed bundle of about ``--size-mb``
megabytes shaped like a ``bundler doctor --profile flux`` run (manifest
``profile: flux``, the canonical evidence documents, ``evidence/logs.json``,
one server and seven worker logs: see ``bench/flux_bundle.py``) with the real
archive writer. Then, each in a fresh child process so ``ru_maxrss`` is that
child's own peak, interleaved:

* **decompress** — open the bundle with the reader and stream every member
  (decrypt + inflate + the reader's own checks): the floor;
* **analyze (CLI, flux)** — ``bundler analyze BUNDLE --format json``, exactly
  what a support engineer runs: the Flux profile parses every log, its rules
  and the generic ones run, the integrity pass reads what nothing else did;
* **analyze (CLI, flux, html)** — the same with ``--format html --output``:
  what the HTML report (its timeline, overview and templates) adds;
* **analyze (no profile)** — the library entry point without a profile
  (generic rules; the logs are only read by the integrity pass).

Each analyze row runs twice: ``BUNDLER_READAHEAD=0`` (every member read
inline, one thread) and with read-ahead (``RA``: a second thread decrypts and
inflates the next chunks while the analysis scans this one). The baseline is
always the single-threaded decompress. Read-ahead can only lower wall time,
from a second core; the ``others`` column says how many cores other processes
kept busy meanwhile (on a shared 2-core machine, at ~1 there is no second core).

Target (task): analyze <= 1.5x decompress, memory bounded (independent of
bundle size). Run: ``.venv/bin/python bench/analyze.py [--size-mb 1024]``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

OUT = ROOT / "bench" / "out"
PASSWORD_ENV = "BUNDLER_BENCH_PASSWORD"  # noqa: S105 (a variable name)
PASSWORD = "bench-password-not-secret"  # noqa: S105 (a throwaway benchmark bundle)
WORKERS = 7
READAHEAD_ENV = "BUNDLER_READAHEAD"


def build(size_mb: int) -> Path:
    """Write (or reuse) the benchmark bundle: 30 % server log, 70 % worker logs."""
    from bench.flux_bundle import SERVER_LOG, evidence, log_lines, worker_log
    from bundler.archive import BundleBuilder, Sealing

    path = OUT / f"analyze-flux-{size_mb}mb.zip"
    if path.exists():
        return path
    OUT.mkdir(parents=True, exist_ok=True)
    total = size_mb * (1 << 20)
    started = time.perf_counter()
    partial = path.with_suffix(".partial.zip")
    with BundleBuilder(partial, sealing=Sealing.with_password(PASSWORD)) as builder:
        for document in evidence(WORKERS):
            data = document.model_dump_json(indent=2).encode()
            builder.add(document.member_path, data, media_type="application/json")
        builder.add(
            SERVER_LOG, log_lines(0, total * 3 // 10, None, WORKERS), media_type="text/plain"
        )
        for index in range(1, WORKERS + 1):
            builder.add(
                worker_log(index),
                log_lines(index, total * 7 // 10 // WORKERS, f"w{index}", WORKERS),
                media_type="text/plain",
            )
        builder.finalize(profile="flux")
    partial.rename(path)
    print(
        f"built {path.name}: {path.stat().st_size / 2**20:.0f} MiB on disk "
        f"in {time.perf_counter() - started:.1f}s",
        file=sys.stderr,
    )
    return path


# --- what each child runs -----------------------------------------------------------------


def child_decompress(path: Path) -> None:
    from bundler.archive import open_bundle
    from bundler.secret_options import OpenSecrets

    total = 0
    with open_bundle(path, OpenSecrets(password_env=PASSWORD_ENV)) as reader:
        for name in reader.names():
            for chunk in reader.iter_chunks(name):
                total += len(chunk)
    print(json.dumps({"bytes": total}))


def child_analyze_generic(path: Path) -> None:
    """The analysis without a product profile: generic rules, logs read by the integrity pass."""
    from bundler.analyze.engine import analyze
    from bundler.analyze.opening import open_for_analysis
    from bundler.secret_options import OpenSecrets

    with open_for_analysis(path, OpenSecrets(password_env=PASSWORD_ENV)) as opened:
        report = analyze(opened.evidence(), profile=None)
        report.bundle.integrity = opened.integrity()
    print(
        json.dumps({"verdict": report.verdict.value, "integrity": report.bundle.integrity.status})
    )


# --- the parent: run each child, time it, read its own rusage ------------------------------


def measure(argv: list[str], readahead: str) -> dict[str, float | str]:
    """Run ``argv`` as a child; wall time, and that child's own CPU time and peak RSS."""
    env = {**os.environ, PASSWORD_ENV: PASSWORD, READAHEAD_ENV: readahead}
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        busy_before = machine_busy_seconds()
        started = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=out, stderr=err, env=env)
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - started
        busy = machine_busy_seconds() - busy_before
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode not in (0, 1, 3):
            err.seek(0)
            raise SystemExit(f"{argv} failed ({proc.returncode}): {err.read()[-2000:]!r}")
    cpu = usage.ru_utime + usage.ru_stime
    return {
        "seconds": seconds,
        "cpu": cpu,
        "maxrss_mib": usage.ru_maxrss / 1024,
        "others": max(busy - cpu, 0.0) / seconds,
    }


def machine_busy_seconds() -> float:
    """CPU seconds all cores spent busy since boot (``/proc/stat``), to see other tenants."""
    try:
        fields = Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]
    except OSError:
        return 0.0
    ticks = [int(f) for f in fields]
    idle = ticks[3] + ticks[4]  # idle + iowait
    return (sum(ticks[:8]) - idle) / os.sysconf("SC_CLK_TCK")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size-mb", type=int, default=1024)
    parser.add_argument("--repeat", type=int, default=5, help="runs per measurement (best kept)")
    parser.add_argument(
        "--readahead", default="4", help="BUNDLER_READAHEAD of the read-ahead (RA) rows"
    )
    parser.add_argument(
        "--child", choices=["build", "decompress", "generic"], help=argparse.SUPPRESS
    )
    parser.add_argument("--bundle", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child == "decompress":
        return child_decompress(args.bundle)
    if args.child == "generic":
        return child_analyze_generic(args.bundle)
    if args.child == "build":
        build(args.size_mb)
        return None
    # Build in a child: on Linux a child's ru_maxrss starts at its parent's RSS at fork,
    # so the parent that spawns the measured children must stay small.
    subprocess.run(
        [sys.executable, __file__, "--size-mb", str(args.size_mb), "--child", "build"], check=True
    )
    path = OUT / f"analyze-flux-{args.size_mb}mb.zip"
    me = [sys.executable, __file__, "--bundle", str(path)]
    cli = [sys.executable, "-m", "bundler", "analyze", str(path), "--format", "json"]
    cli += ["--password-env", PASSWORD_ENV]
    html = [sys.executable, "-m", "bundler", "analyze", str(path), "--format", "html"]
    html += ["--password-env", PASSWORD_ENV, "--output", str(OUT / "analyze-report.html")]
    decompress, generic = [*me, "--child", "decompress"], [*me, "--child", "generic"]
    # (argv, BUNDLER_READAHEAD): "0" reads every member inline on one thread, as before.
    runs = {
        "decompress": (decompress, "0"),
        "decompress (read-ahead)": (decompress, args.readahead),
        "analyze (CLI, flux)": (cli, "0"),
        "analyze (CLI, flux, RA)": (cli, args.readahead),
        "analyze (CLI, flux, html)": (html, "0"),
        "analyze (no profile)": (generic, "0"),
        "analyze (no profile, RA)": (generic, args.readahead),
    }
    samples: dict[str, list[dict[str, float | str]]] = {label: [] for label in runs}
    for _ in range(args.repeat):  # interleaved, so a busy moment hurts every run alike
        for label, (argv, readahead) in runs.items():
            samples[label].append(measure(argv, readahead))
    best = {label: min(s, key=lambda r: float(r["cpu"])) for label, s in samples.items()}
    fastest = {label: min(s, key=lambda r: float(r["seconds"])) for label, s in samples.items()}
    wall = {label: float(r["seconds"]) for label, r in fastest.items()}
    base_cpu, base_wall = float(best["decompress"]["cpu"]), wall["decompress"]
    print(
        f"bundle: {path.name} ({path.stat().st_size / 2**20:.0f} MiB compressed, "
        f"~{args.size_mb} MiB of members); best of {args.repeat} interleaved runs"
    )
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(f"{'run':<27}{'cpu s':>7}{'x':>6}{'wall s':>8}{'x':>6}{'max RSS MiB':>13}{'others':>8}")
    for label, r in best.items():
        cpu = float(r["cpu"])
        print(
            f"{label:<27}{cpu:>7.2f}{cpu / base_cpu:>6.2f}{wall[label]:>8.2f}"
            f"{wall[label] / base_wall:>6.2f}{float(r['maxrss_mib']):>13.0f}"
            f"{float(fastest[label]['others']):>8.2f}"
        )
    print("others: cores other processes kept busy during the fastest run (read-ahead needs one)")


if __name__ == "__main__":
    main()
