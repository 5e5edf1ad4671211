"""Fleet benchmark: ``bundler doctor --bundle`` over N Flux workers and N SSH hosts, then analyze.

For each fleet size (default 64 and 1,000): a real Flux server on PostgreSQL
with N emulated workers (``samples/flux_fleet``: faults sprinkled through it,
executions waiting on them), and N SSH hosts: ``--instances`` real sshd on
127.0.0.1 behind N ssh_config aliases (as ``bench/fanout.py``), each an
inventory host ``role: worker`` naming its Flux worker, with a Flux worker log
of ``--log-kib``. Each doctor run is a fresh child process: wall time from the
parent, peak RSS from ``os.wait4`` (that child only), doctor's own CPU, and
from the bundle's manifest the API requests it made (``options.api``).

Then ``bundler analyze`` of the largest bundle (text and JSON), in a fresh
child: wall, peak RSS, text report lines.

Targets (issue 20): per-target doctor wall at the largest size <= 1.2x the
smallest; peak RSS <= 1.25x; analyze <= 10 s and < 300 MB; text report <= 150
lines. Load (``/proc/loadavg``) is printed with every figure: on a shared
2-core machine the ratios of runs made minutes apart measure the neighbours
too (see bench/README.md).

    .venv/bin/python bench/fleet.py                       # 64 and 1000
    .venv/bin/python bench/fleet.py --sizes 64,256 --repeat 2
    .venv/bin/python bench/fleet.py --sizes 64,1000 --keep bench/out/fleet   # bundles kept

Kept bundles open with the password in ``BENCH_FLEET_PASSWORD`` (``bench-fleet-password-1``).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from samples.flux_fleet.fleet import FluxFleet  # noqa: E402
from samples.flux_fleet.spec import FleetSpec  # noqa: E402
from tests.support.sshd import SshLab  # noqa: E402

PASSWORD_ENV = "BENCH_FLEET_PASSWORD"  # noqa: S105 (a variable name)
TARGETS = {"wall_per_target_ratio": 1.2, "rss_ratio": 1.25, "analyze_s": 10.0}
ANALYZE_RSS_MB = 300
REPORT_LINES = 150


def load() -> str:
    return Path("/proc/loadavg").read_text().split(" ", 3)[:3].__str__()


def spec_for(size: int) -> FleetSpec:
    """About 1 % evicted, 1 % unhealthy, 0.5 % saturated (at least one of each)."""
    return FleetSpec(
        workers=size,
        evicted=max(1, size // 100),
        unhealthy=max(1, size // 100),
        saturated=max(1, size // 200),
        silent_after_pongs=0,
    )


def doctor_timeout(size: int, given: float | None) -> float:
    """Doctor's ``--timeout``: 60 s (its default), or 0.25 s a worker past 240 workers.

    ``GET /workers`` is one request whose answer grows with the fleet (every worker with
    its packages and resources); at 1,000 workers on two shared cores (load 11) the
    server took over 60 s, the collector timed out, and the bundle had no worker list
    (so no per-worker requests either): a benchmark of nothing. A support engineer
    facing such a fleet raises ``--timeout`` the same way.
    """
    return given if given is not None else max(60.0, 0.25 * size)


def write_worker_log(path: Path, kib: int) -> None:
    """A Flux worker's INFO log: executions scheduled, claimed, checkpointed, completed."""
    lines = []
    for n in range(max(1, kib * 1024 // 400)):
        stamp = f"2026-11-30 {n // 3600 % 24:02d}:{n // 60 % 60:02d}:{n % 60:02d}"
        run = f"{n:08x}0123456789abcdef01234567"
        for event in ("Scheduled", "Claimed"):
            lines.append(f"{stamp} - flux.worker - INFO - Execution {event} - etl v3 - {run}")
        lines.append(f"{stamp} - flux.worker - INFO - Checkpointing execution 'etl' ({run})...")
        lines.append(f"{stamp} - flux.worker - INFO - Execution COMPLETED - etl v3 - {run}")
    path.write_text("\n".join(lines) + "\n")


def write_inventory(path: Path, spec: FleetSpec, log: Path) -> None:
    hosts = "".join(
        f"  - address: t{i:04d}\n    role: worker\n    worker: {spec.name(i)}\n"
        f"    logs: [{{file: {log}}}]\n"
        for i in range(spec.workers)
    )
    path.write_text("hosts:\n" + hosts)


def child(argv: list[str], env: dict[str, str], runner: Sequence[str] = ()) -> dict[str, Any]:
    """Run ``python [RUNNER] -m bundler ARGV``; wall, peak RSS (MiB), CPU, exit code, stdout."""
    started = time.perf_counter()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        process = subprocess.Popen(
            [sys.executable, *runner, "-m", "bundler", *argv], stdout=out, stderr=err, env=env
        )
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - started
        out.seek(0)
        err.seek(0)
        return {
            "wall_s": round(wall, 2),
            "rss_mib": round(usage.ru_maxrss / 1024, 1),
            "cpu_s": round(usage.ru_utime + usage.ru_stime, 2),
            "code": os.waitstatus_to_exitcode(status),
            "stdout": out.read().decode(errors="replace"),
            "stderr": err.read().decode(errors="replace")[-3000:],
            "load": load(),
        }


def manifest_of(bundle: Path, env: dict[str, str], work: Path) -> dict[str, Any]:
    folder = work / f"x-{bundle.stem}"
    shutil.rmtree(folder, ignore_errors=True)
    done = child(["extract", str(bundle), "--to", str(folder), "--password-env", PASSWORD_ENV], env)
    if done["code"] != 0:
        raise RuntimeError(f"extract failed: {done['stderr']}")
    manifest: dict[str, Any] = json.loads((folder / "manifest.json").read_text())
    shutil.rmtree(folder, ignore_errors=True)
    return manifest


def measure_size(size: int, options: argparse.Namespace, work: Path, env: dict[str, str]) -> dict:
    spec = spec_for(size)
    log = work / "worker.log"
    write_worker_log(log, options.log_kib)
    runs = []
    started = time.perf_counter()
    with SshLab(work / f"ssh{size}") as lab, FluxFleet(spec, root=work / f"flux{size}") as fleet:
        instances = [lab.start(f"s{i}") for i in range(options.instances)]
        for instance in instances:
            lab.trust(instance)
        for i in range(size):
            lab.add_host(f"t{i:04d}", instances[i % len(instances)])
        fleet.start_waiting_executions()
        fleet.wait_for_faults(timeout_s=300)
        setup_s = time.perf_counter() - started
        print(f"{size:>5}: fleet and {size} ssh aliases up in {setup_s:.0f}s (load {load()})")
        inventory = work / f"inv{size}.yaml"
        write_inventory(inventory, spec, log)

        def doctor(bundle: Path) -> list[str]:
            return [
                "doctor",
                "--profile",
                "flux",
                "--server",
                fleet.url,
                "--inventory",
                str(inventory),
                "--ssh-config",
                str(lab.ssh_config),
                "--known-hosts",
                str(lab.known_hosts),
                "--concurrency",
                "16",
                "--timeout",
                str(doctor_timeout(size, options.timeout)),
                "--bundle",
                str(bundle),
                "--password-env",
                PASSWORD_ENV,
            ]

        if options.hold:
            hold(doctor(work / f"fleet{size}-held.zip"), env)
        for run in range(options.repeat):
            bundle = work / f"fleet{size}-{run}.zip"
            result = child(doctor(bundle), env)
            if result["code"] not in (0, 1, 5) or not bundle.exists():
                raise RuntimeError(f"doctor failed at {size}: {result['stderr']}")
            api = manifest_of(bundle, env, work)["options"].get("api", {})
            result |= {
                "api": api,
                "bundle": str(bundle),
                "bundle_mib": round(bundle.stat().st_size / 2**20, 2),
            }
            result["per_target_s"] = round(result["wall_s"] / size, 4)
            result["requests_per_worker"] = round(api.get("requests", 0) / size, 2)
            ms = result["per_target_s"] * 1000
            print(
                f"{size:>5}: doctor wall {result['wall_s']:.1f}s ({ms:.1f} ms/target), "
                f"peak RSS {result['rss_mib']:.0f} MiB, CPU {result['cpu_s']:.0f}s, "
                f"{api.get('requests')} API requests ({result['requests_per_worker']}/worker, "
                f"peak {api.get('peak_concurrent_requests')} at once), "
                f"exit {result['code']} (load {result['load']})"
            )
            runs.append(result)
            if options.keep is not None:
                options.keep.mkdir(parents=True, exist_ok=True)
                shutil.copy2(bundle, options.keep / bundle.name)
        if options.memray is not None:  # once more, where memray sees what is alive at the peak
            options.memray.mkdir(parents=True, exist_ok=True)
            capture = options.memray / f"doctor{size}.bin"
            capture.unlink(missing_ok=True)
            runner = ["-m", "memray", "run", "--aggregate", "-q", "-o", str(capture)]
            child(doctor(work / f"fleet{size}-memray.zip"), env, runner)
            print(f"{size:>5}: memray capture {capture} (python -m memray summary {capture})")
    return {"size": size, "setup_s": round(setup_s, 1), "runs": runs, "spec": spec.__dict__}


def hold(argv: list[str], env: dict[str, str]) -> None:
    """Keep the fleet up for runs by hand: print the doctor command, wait for ^C or SIGTERM.

    Iterating on doctor's memory or speed needs many runs against one fleet; setting up
    1,000 workers and hosts takes about two minutes each time.
    """
    shown = " ".join(shlex.quote(a) for a in [sys.executable, "-m", "bundler", *argv])
    print(f"fleet held; run:\n  {PASSWORD_ENV}={env[PASSWORD_ENV]} {shown}", flush=True)
    print("^C measures and stops; SIGTERM stops", flush=True)
    with contextlib.suppress(KeyboardInterrupt):
        while True:
            time.sleep(3600)


def analyze(bundle: Path, env: dict[str, str]) -> dict[str, Any]:
    text = child(["analyze", str(bundle), "--password-env", PASSWORD_ENV], env)
    as_json = child(
        ["analyze", str(bundle), "--format", "json", "--password-env", PASSWORD_ENV], env
    )
    report = json.loads(as_json["stdout"]) if as_json["stdout"].strip() else {}
    lines = text["stdout"].splitlines()
    return {
        "text": {k: v for k, v in text.items() if k not in ("stdout", "stderr")},
        "json": {k: v for k, v in as_json.items() if k not in ("stdout", "stderr")},
        "text_lines": len(lines),
        "first_failed_layer": report.get("first_failed_layer"),
        "workers_total": (report.get("fleet") or {}).get("workers_total"),
        "report_head": lines[:40],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="64,1000")
    parser.add_argument("--instances", type=int, default=8, help="sshd processes")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument(
        "--hold",
        action="store_true",
        help="keep each fleet up for doctor runs by hand until ^C, then measure",
    )
    parser.add_argument("--log-kib", type=int, default=256, help="each host's worker log")
    parser.add_argument(
        "--timeout", type=float, default=None, help="doctor --timeout (default: scaled)"
    )
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "out" / "fleet.json")
    parser.add_argument(
        "--keep",
        type=Path,
        default=None,
        help="copy each size's bundle here (fleetN-RUN.zip) for analyzing again later",
    )
    parser.add_argument(
        "--memray",
        type=Path,
        default=None,
        help="also run doctor once per size under memray (pip install memray) into this folder",
    )
    options = parser.parse_args()
    # a TERM (a session's timeout, `kill`) unwinds the fleets' context managers like ^C does:
    # PostgreSQL, the Flux server, the emulator and the sshd processes stop with the benchmark
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    sizes = sorted(int(n) for n in options.sizes.split(","))
    env = {**os.environ, "PYTHONPATH": str(ROOT), PASSWORD_ENV: "bench-fleet-password-1"}
    env.pop("SSH_AUTH_SOCK", None)
    work = Path(tempfile.mkdtemp(prefix="bundler-fleet-"))
    try:
        results = [measure_size(size, options, work, env) for size in sizes]
        small, large = results[0], results[-1]
        best = {r["size"]: min(r["runs"], key=lambda x: x["wall_s"]) for r in results}
        ratio = best[large["size"]]["per_target_s"] / best[small["size"]]["per_target_s"]
        rss = max(x["rss_mib"] for x in large["runs"]) / max(x["rss_mib"] for x in small["runs"])
        analysis = analyze(Path(best[large["size"]]["bundle"]), env)
        print(
            f"analyze {large['size']} workers: wall {analysis['text']['wall_s']:.1f}s "
            f"(json {analysis['json']['wall_s']:.1f}s), peak RSS "
            f"{analysis['text']['rss_mib']:.0f} MiB, text report {analysis['text_lines']} lines, "
            f"first failed layer {analysis['first_failed_layer']} (load {analysis['text']['load']})"
        )
        verdict = {
            "wall_per_target_ratio": round(ratio, 2),
            "rss_ratio": round(rss, 2),
            "analyze_wall_s": analysis["text"]["wall_s"],
            "analyze_rss_mib": analysis["text"]["rss_mib"],
            "text_lines": analysis["text_lines"],
        }
        ok = {
            "wall_per_target": ratio <= TARGETS["wall_per_target_ratio"],
            "rss": rss <= TARGETS["rss_ratio"],
            "analyze_wall": analysis["text"]["wall_s"] <= TARGETS["analyze_s"],
            "analyze_rss": analysis["text"]["rss_mib"] < ANALYZE_RSS_MB,
            "text_lines": analysis["text_lines"] <= REPORT_LINES,
        }
        print(
            f"{large['size']} vs {small['size']}: per-target wall x{ratio:.2f} (<= 1.2), "
            f"peak RSS x{rss:.2f} (<= 1.25); "
            + ", ".join(f"{k} {'ok' if v else 'OVER'}" for k, v in ok.items())
        )
        for result in results:
            for run in result["runs"]:
                run.pop("stdout", None)
        options.out.parent.mkdir(parents=True, exist_ok=True)
        options.out.write_text(
            json.dumps(
                {
                    "options": vars(options) | {"out": str(options.out)},
                    "results": results,
                    "analysis": analysis,
                    "verdict": verdict,
                    "ok": ok,
                },
                indent=2,
                default=str,
            )
        )
        return 0 if all(ok.values()) else 1
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
