"""Benchmark of the archive layer: write throughput and peak memory.

Measures, on the same generated data in the same run:

* plain pyzipper: deflate-6 + AES-256 via ``open(ZipInfo, 'w')`` with 1 MiB
  writes (the baseline; target: ours >= 90 % of it);
* our writer (:class:`EncryptedZipWriter`): the same, plus sha256 of every
  member, the atomic publish and the post-write verification (``mac``, the
  default; ``full`` reported separately);
* the builder path (:class:`BundleBuilder`, identity transform): spool every
  member (AES-GCM), then finalize into the zip; reported separately;
* peak RSS (``ru_maxrss`` of a child process) while writing one 1 GB member,
  through the writer and through the builder (target < 100 MB).

Run: ``.venv/bin/python bench/archive.py`` (``--help`` for sizes and repeats).
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import cast

import pyzipper
from pyzipper.zipfile_aes import AESZipInfo

from bundler.archive import BundleBuilder, EncryptedZipWriter, Sealing, Secret
from bundler.archive.zipwriter import AES_KWARGS

MiB = 1 << 20
PASSWORD = "benchmark password, not a secret"  # noqa: S105
WHEN = datetime(2024, 5, 1, tzinfo=UTC)
LEVELS = ("INFO", "INFO", "INFO", "DEBUG", "WARN", "ERROR")
STATES = ("CREATED", "RUNNING", "DONE")


def generate_logs(size: int, seed: int = 7) -> bytes:
    """Realistic mixed logs: key=value lines, JSON events, stack traces, ids, addresses."""
    rng = random.Random(seed)
    out = bytearray()
    stamp = 1_714_550_400.0
    while len(out) < size:
        stamp += rng.expovariate(20)
        when = (
            time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(stamp))
            + f".{int(stamp % 1 * 1000):03d}Z"
        )
        pick = rng.random()
        if pick < 0.55:
            line = (
                f"{when} {rng.choice(LEVELS)} worker[{rng.randint(1, 64)}] "
                f"execution={rng.getrandbits(64):016x} state={rng.choice(STATES)} "
                f"peer=10.{rng.randint(0, 255)}.{rng.randint(0, 255)}.{rng.randint(1, 254)}:"
                f'{rng.randint(1024, 65535)} msg="heartbeat ok" latency_ms={rng.randint(1, 900)}\n'
            )
        elif pick < 0.9:
            line = (
                f'{{"ts":"{when}","level":"{rng.choice(LEVELS).lower()}","event":"lease.renew",'
                f'"worker":"w{rng.randint(1, 200)}","lease":"{rng.getrandbits(128):032x}",'
                f'"ttl_s":{rng.randint(10, 120)},"attempt":{rng.randint(1, 5)}}}\n'
            )
        else:
            line = (
                f"{when} ERROR Traceback (most recent call last):\n"
                f'  File "/opt/flux/worker/runtime.py", line {rng.randint(10, 900)}, in step\n'
                f"    self._deploy(job_id={rng.getrandbits(32):08x})\n"
                f"ConnectionResetError: [Errno 104] Connection reset by peer\n"
            )
        out += line.encode()
    del out[size:]
    return bytes(out)


def split_members(data: bytes, count: int) -> dict[str, memoryview]:
    """A bundle-like set of members: several large logs and smaller outputs."""
    view = memoryview(data)
    size = len(data) // count
    return {
        f"hosts/h{i % 8:02d}/logs/{i}.log": view[i * size : (i + 1) * size] for i in range(count)
    }


def slices(view: memoryview) -> Iterator[bytes]:
    """1 MiB pieces of ``view``, uncopied: the writers take any buffer where they say bytes."""
    for start in range(0, len(view), MiB):
        yield cast(bytes, view[start : start + MiB])


def write_plain(path: Path, members: dict[str, memoryview]) -> None:
    with pyzipper.AESZipFile(
        path, "w", compression=pyzipper.ZIP_DEFLATED, compresslevel=6,
        encryption=pyzipper.WZ_AES, encryption_kwargs=dict(AES_KWARGS),
    ) as zf:  # fmt: skip
        zf.setpassword(PASSWORD.encode())
        for name, view in members.items():
            info = AESZipInfo(name, date_time=(2024, 5, 1, 0, 0, 0))
            info.compress_type = pyzipper.ZIP_DEFLATED
            info._compresslevel = 6
            with zf.open(info, "w", force_zip64=True) as handle:
                for piece in slices(view):
                    handle.write(piece)


def write_ours(path: Path, members: dict[str, memoryview], verify: str = "mac") -> None:
    with EncryptedZipWriter(
        path,
        password=Secret(PASSWORD),
        created_at=WHEN,
        verify=verify,  # type: ignore[arg-type]
    ) as writer:
        for name, view in members.items():
            writer.write_member(name, slices(view))
        writer.commit()


@dataclass
class Clock:
    """Wall and CPU seconds of one step (CPU time is what a busy shared machine distorts least)."""

    wall: float = 0.0
    cpu: float = 0.0

    @classmethod
    def measure(cls, action: Callable[[], object]) -> Clock:
        wall, cpu = time.perf_counter(), time.process_time()
        action()
        return cls(time.perf_counter() - wall, time.process_time() - cpu)


def write_builder(path: Path, members: dict[str, memoryview]) -> tuple[Clock, Clock]:
    """Time spent adding (spooling) and finalizing."""
    with BundleBuilder(path, sealing=Sealing.with_password(PASSWORD)) as builder:

        def add_all() -> None:
            for name, view in members.items():
                builder.add(name, slices(view), media_type="text/plain")

        spooling = Clock.measure(add_all)
        finalizing = Clock.measure(lambda: builder.finalize(command="bench"))
    return spooling, finalizing


def throughput(args: argparse.Namespace, workdir: Path) -> None:
    size = args.size_mb * MiB
    print(f"generating {args.size_mb} MiB of mixed logs ...", file=sys.stderr)
    members = split_members(generate_logs(size), args.members)
    runs: dict[str, list[Clock]] = {
        "plain": [], "ours": [], "ours_full": [], "spool": [], "finalize": [], "builder": []
    }  # fmt: skip
    zip_size = 0
    load_before = os.getloadavg()[0]
    for run in range(args.repeat):
        print(f"run {run + 1}/{args.repeat} ...", file=sys.stderr)
        for label, action in (
            ("plain", write_plain),
            ("ours", write_ours),
            ("ours_full", lambda p, m: write_ours(p, m, verify="full")),
        ):
            target = workdir / f"{label}.zip"
            runs[label].append(Clock.measure(lambda a=action, t=target: a(t, members)))  # type: ignore[misc]
            zip_size = target.stat().st_size
            target.unlink()
        add, finish = write_builder(workdir / "builder.zip", members)
        runs["spool"].append(add)
        runs["finalize"].append(finish)
        runs["builder"].append(Clock(add.wall + finish.wall, add.cpu + finish.cpu))
        (workdir / "builder.zip").unlink()
    mb = size / MiB
    wall = {k: statistics.median(c.wall for c in v) for k, v in runs.items()}
    cpu = {k: statistics.median(c.cpu for c in v) for k, v in runs.items()}
    rows = [
        ("plain", "pyzipper deflate-6 + AES-256 (baseline)"),
        ("ours", "bundler writer (sha256, verify=mac, atomic)"),
        ("ours_full", "bundler writer, verify=full"),
        ("spool", "builder: add to encrypted spool"),
        ("finalize", "builder: finalize (spool -> zip -> verify)"),
        ("builder", "builder: total (identity transform)"),
    ]
    print(
        f"\n{mb:.0f} MiB input, {args.members} members, zip {zip_size / MiB:.1f} MiB, median of "
        f"{args.repeat} runs, Python {sys.version.split()[0]}, load average "
        f"{load_before:.1f} -> {os.getloadavg()[0]:.1f}"
    )
    print(f"{'path':<45} {'wall s':>7} {'MiB/s':>6} {'cpu s':>7} {'MiB/s':>6} {'vs baseline':>12}")
    for key, label in rows:
        versus = "" if key in ("spool", "finalize") else (
            f"{wall['plain'] / wall[key]:.0%} / {cpu['plain'] / cpu[key]:.0%}"
        )  # fmt: skip
        print(
            f"{label:<45} {wall[key]:>7.2f} {mb / wall[key]:>6.1f} {cpu[key]:>7.2f} "
            f"{mb / cpu[key]:>6.1f} {versus:>12}"
        )
    print("(vs baseline: wall / CPU; baseline throughput divided by this row's)")


def rss_child(kind: str, gigabytes: float, workdir: Path) -> None:
    """Runs in a child process: write one large member, print peak RSS in MiB."""
    pool = generate_logs(2 * MiB, seed=11)  # repeated: deflate's window is only 32 KiB
    total = int(gigabytes * (1 << 30))

    view = memoryview(pool)

    def chunks() -> Iterator[bytes]:  # uncopied pieces of the pool, as slices() gives
        sent = 0
        while sent < total:
            offset = sent % len(pool)
            size = min(MiB, total - sent, len(pool) - offset)
            sent += size
            yield cast(bytes, view[offset : offset + size])

    target = workdir / f"rss-{kind}.zip"
    if kind == "writer":
        with EncryptedZipWriter(target, password=Secret(PASSWORD), created_at=WHEN) as writer:
            writer.write_member("hosts/h01/logs/huge.log", chunks())
            writer.commit()
    else:
        with BundleBuilder(target, sealing=Sealing.with_password(PASSWORD)) as builder:
            builder.add("hosts/h01/logs/huge.log", chunks(), media_type="text/plain")
            builder.finalize(command="bench")
    target.unlink()
    peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(f"{peak_kib / 1024:.1f} {_vm_hwm_mib():.1f}")


def _vm_hwm_mib() -> float:
    """Linux's per-process high-water mark (not inherited across exec), as a cross-check."""
    try:
        status = Path("/proc/self/status").read_text()
    except OSError:
        return float("nan")
    for line in status.splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def rss(args: argparse.Namespace, workdir: Path) -> None:
    print(f"peak RSS writing one {args.rss_gb:g} GiB member (child process)")
    for kind in ("writer", "builder"):
        started = time.perf_counter()
        child = subprocess.run(
            [sys.executable, __file__, "--rss-child", kind, "--rss-gb", str(args.rss_gb),
             "--workdir", str(workdir)],
            capture_output=True, text=True, check=True,
        )  # fmt: skip
        seconds = time.perf_counter() - started
        maxrss, hwm = (float(x) for x in child.stdout.split())
        print(f"{kind:<8} ru_maxrss {maxrss:>6.1f} MiB  VmHWM {hwm:>6.1f} MiB  ({seconds:.0f} s)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size-mb", type=int, default=256, help="input size (default 256 MiB)")
    parser.add_argument("--members", type=int, default=32, help="number of members")
    parser.add_argument("--repeat", type=int, default=3, help="runs per path (median)")
    parser.add_argument("--rss-gb", type=float, default=1.0, help="member size for the RSS test")
    parser.add_argument("--skip-rss", action="store_true")
    parser.add_argument("--skip-throughput", action="store_true")
    parser.add_argument("--workdir", type=Path, default=None, help="where temporary zips go")
    parser.add_argument("--rss-child", choices=("writer", "builder"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.rss_child:
        rss_child(args.rss_child, args.rss_gb, args.workdir)
        return
    base = args.workdir or Path(__file__).resolve().parent / "out"
    base.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=base) as tmp:
        # Memory first: on Linux a child's ru_maxrss starts at its parent's RSS at fork, so
        # the children must be spawned before this process holds the throughput data.
        if not args.skip_rss:
            rss(args, Path(tmp))
        if not args.skip_throughput:
            throughput(args, Path(tmp))


if __name__ == "__main__":
    main()
