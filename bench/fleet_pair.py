"""Before/after bundle pairs of N workers, Flux and LyftData, for ``bundler diff`` at fleet scale.

Each pair is an incident's bundle (BEFORE: 1 % of the workers in trouble) and one
taken after the repair (AFTER: every worker healthy, a canary newer than BEFORE),
written as extracted bundle directories (``evidence/*.json``, compact, and a
manifest with every member's checksum), which ``bundler diff`` and ``analyze``
open as they open a zip. Built from a block of ``BLOCK`` workers repeated with
new names:

* **Flux**: the committed pair (``samples/pairs``, a real Flux lab: w2 hung
  until evicted, then resumed and a run pinned to it completed). A block is 99
  copies of its healthy worker w1 and one of w2 (each with 3 of its ~60
  installed packages), with their authorization, capacity and host records;
  one canary (the lab's last run) per block, on that block's copy of the worker
  it ran on; the lab's collectors, plus one ``http.worker-detail`` collector a
  worker (the one per-worker fan-out a real doctor run records).
* **LyftData**: a simulator scenario of 100 workers in 10 groups and 10 jobs
  (two replicas each, but job-0000 runs on w0000 alone) rendered by the
  simulator's own handlers and normalized by the LyftData profile; in BEFORE
  w0000's heartbeat is 412 s old. Workers, leases, capacity, jobs, placements,
  deployments, requirement reports and canaries are repeated per block (group,
  job and deployment names too); every response the plan fetched is a collector.

Neither carries ``raw/`` members (so the analysis reads the stored evidence, as
for a bundle whose raw data was not kept) nor logs. Pairs are cached under
``bench/out/diff-fleet/``: ``python bench/fleet_pair.py --sizes 1000,10000``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

OUT = ROOT / "bench" / "out" / "diff-fleet"
BLOCK = 100
PRODUCTS = ("flux", "lyftdata")

Rename = tuple[re.Pattern[str], Callable[[int, re.Match[str]], str]]


@dataclass
class Block:
    """One block's documents: ``fixed`` as they are, ``repeated`` lists once per block."""

    fixed: dict[str, dict[str, Any]]
    repeated: dict[tuple[str, str], list[str]] = field(default_factory=dict)
    renamed_keys: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)
    renames: list[Rename] = field(default_factory=list)
    collectors: list[dict[str, Any]] = field(default_factory=list)
    repeated_collectors: list[str] = field(default_factory=list)
    manifest: dict[str, Any] = field(default_factory=dict)

    def rename(self, text: str, block: int) -> str:
        for pattern, replace in self.renames:
            text = pattern.sub(lambda m, r=replace: r(block, m), text)  # type: ignore[misc]
        return text


def write_bundle(block: Block, blocks: int, root: Path) -> Path:
    """Lay ``blocks`` copies of ``block`` out under ``root`` as an extracted bundle."""
    root.mkdir(parents=True, exist_ok=True)
    entries = []
    for member, doc in sorted(block.fixed.items()):
        doc = dict(doc)
        for (where, name), texts in block.repeated.items():
            if where == member:
                joined = ",".join(texts)
                doc[name] = doc.get(name, []) + json.loads(
                    "[" + ",".join(block.rename(joined, b) for b in range(blocks)) + "]"
                )
        for (where, name), mapping in block.renamed_keys.items():
            if where == member:
                doc[name] = {
                    block.rename(key, b): value
                    for b in range(blocks)
                    for key, value in mapping.items()
                }
        data = json.dumps(doc).encode()
        (root / member).parent.mkdir(parents=True, exist_ok=True)
        (root / member).write_bytes(data)
        entries.append(
            {
                "path": member,
                "sha256": hashlib.sha256(data).hexdigest(),
                "size": len(data),
                "media_type": "application/json",
                "schema_name": doc.get("schema_name"),
            }
        )
    outcomes = ",".join(block.repeated_collectors)
    repeated = json.loads("[" + ",".join(block.rename(outcomes, b) for b in range(blocks)) + "]")
    manifest = dict(block.manifest)
    manifest["members"] = entries
    manifest["collectors"] = block.collectors + repeated
    (root / "manifest.json").write_text(json.dumps(manifest))
    return root


def _texts(records: list[Any]) -> list[str]:
    return [json.dumps(r) for r in records]


# --- Flux: the committed pair, one worker in a hundred hung ---------------------------------


def _read_pair_side(path: Path) -> tuple[dict[str, dict[str, Any]], dict[str, Any]]:
    from bundler.analyze.opening import open_for_analysis
    from bundler.secret_options import OpenSecrets
    from samples.catalog import PASSWORD_ENV, SAMPLE_PASSWORD

    os.environ.setdefault(PASSWORD_ENV, SAMPLE_PASSWORD)
    with open_for_analysis(path, OpenSecrets(password_env=PASSWORD_ENV)) as opened:
        docs = {
            name: json.loads(opened.source.read_bytes(name))
            for name in opened.source.names()
            if name.startswith("evidence/")
        }
        assert opened.manifest is not None
        manifest = opened.manifest.model_dump(mode="json", by_alias=True)
    return docs, manifest


PACKAGES = 3
"""Installed packages kept of each Flux worker's ~60: a worker's record is then ~1.5 KB, so
100,000 of them fit the reader's 256 MiB cap on one JSON member (``DEFAULT_MAX_JSON_BYTES``)."""

FLUX_WORKER = re.compile(r"\bw([12])\b")
FLUX_ALIAS = re.compile(r"\bh0([23])\b")


def _flux_copy(record: dict[str, Any], k: int) -> str:
    """``record`` (about w1 or w2, host h02 or h03) as the block's worker ``k``."""
    text = json.dumps(record)
    text = FLUX_WORKER.sub(f"w{k:04d}", text)
    return FLUX_ALIAS.sub(f"h{k:04d}", text)


def flux_block(side: str) -> Block:
    from samples.pair import AFTER, BEFORE

    docs, manifest = _read_pair_side(BEFORE if side == "before" else AFTER)
    template = ["w1"] * (BLOCK - 1) + ["w2"]  # the block's last worker is the one that hung
    block = Block(fixed={})
    for member, doc in docs.items():
        if member == "evidence/logs.json":
            doc = doc | {"logs": []}  # no log members in these bundles
        block.fixed[member] = doc
        for name in ("workers", "hosts", "canaries"):
            records = doc.get(name)
            if not isinstance(records, list) or not records:
                continue
            keep, per_block = [], []
            for record in records:
                if isinstance(record.get("packages"), list):
                    record["packages"] = record["packages"][:PACKAGES]
                owner = record.get("worker", record.get("name"))
                if owner not in ("w1", "w2"):
                    keep.append(record)
                elif name == "canaries":  # one a block, on the copy of the worker it ran on
                    copy = _flux_copy(record, template.index(owner))
                    per_block.append(copy.replace(record["canary_id"], record["canary_id"] + "-B"))
                else:
                    per_block += [
                        _flux_copy(record, k) for k, t in enumerate(template) if t == owner
                    ]
            doc[name] = keep
            block.repeated[(member, name)] = per_block
        if isinstance(doc.get("worker_versions"), dict):
            versions = doc["worker_versions"]
            block.renamed_keys[(member, "worker_versions")] = {
                f"w{k:04d}": versions[t] for k, t in enumerate(template)
            }
    block.renames = [
        (re.compile(r"\bw(\d{4})\b"), lambda b, m: f"w{b * BLOCK + int(m[1]):06d}"),
        (re.compile(r"\bh(\d{4})\b"), lambda b, m: f"h{b * BLOCK + int(m[1]):06d}"),
        (re.compile(r"-B\b"), lambda b, m: f"-{b}"),
    ]
    for outcome in manifest["collectors"]:
        outcome["members"], outcome["bytes"] = [], 0  # their raw members are not kept
    block.collectors = manifest["collectors"]
    block.repeated_collectors = [
        json.dumps(
            {
                "id": f"http.worker-detail.w{k:04d}",
                "kind": "http",
                "target": f"/workers/w{k:04d}",
                "status": "ok",
                "step": "worker-detail",
                "bound": {"name": f"w{k:04d}"},
            }
        )
        for k in range(BLOCK)
    ]
    manifest["members"], manifest["collectors"] = [], []
    block.manifest = manifest
    return block


# --- LyftData: the simulator's answers, normalized, one worker in a hundred silent ----------

COLLECTED = datetime(2026, 12, 6, 17, 0, tzinfo=UTC)
"""When BEFORE was collected; AFTER is 15 minutes later."""


def lyftdata_block(side: str) -> Block:
    from bench.lyftdata_normalize import render
    from bundler.products.base import NormalizeContext
    from bundler.products.lyftdata import PROFILE
    from samples.lyftdata_sim.scenario import JobSpec, LicenseSpec, Scenario, WorkerSpec

    groups = 10
    now = COLLECTED if side == "before" else COLLECTED + timedelta(minutes=15)
    workers = [WorkerSpec(id=f"w{i:04d}", group=f"g{i % groups}") for i in range(BLOCK)]
    if side == "before":
        workers[0] = WorkerSpec(id="w0000", group="g0", last_heartbeat="-412s")
    scenario = Scenario(
        description="diff benchmark block",
        license=LicenseSpec(max_workers=None),
        workers=workers,
        jobs=[  # job-0000 runs on w0000 alone: its silence blocks the job
            JobSpec(name=f"job-{j:04d}", worker_group=f"g{j}", replicas=2) for j in range(1, groups)
        ]
        + [JobSpec(name="job-0000", worker_group="g0", replicas=1, workers=["w0000"])],
    )
    source, results = render(scenario, now)
    context = NormalizeContext(source=source, results=results, hosts=[], observed_at=now)
    block = Block(fixed={})
    for document in PROFILE.normalize(context):
        doc = document.model_dump(mode="json", by_alias=True)
        member = document.member_path
        block.fixed[member] = doc
        for name, value in list(doc.items()):
            if isinstance(value, list) and value and name not in ("gaps", "probes"):
                block.repeated[(member, name)] = _texts(value)
                doc[name] = []
        if isinstance(doc.get("worker_versions"), dict):
            block.renamed_keys[(member, "worker_versions")] = doc["worker_versions"]
    block.renames = [
        (re.compile(r"(?<![A-Za-z0-9])w(\d{4})\b"), lambda b, m: f"w{b * BLOCK + int(m[1]):06d}"),
        (re.compile(r"(?<![A-Za-z0-9])job-(\d{4})\b"), lambda b, m: f"job-{b}{m[1]}"),
        (re.compile(r'"g(\d)"'), lambda b, m: f'"g{b:04d}-{m[1]}"'),
        (re.compile(r"\bdep_7f3c\b"), lambda b, m: f"dep_7f3c-{b}"),
        (re.compile(r'"telemetry"'), lambda b, m: f'"telemetry-{b}"'),
        (re.compile(r"\b(http\.[\w-]+)\.(\d{3})\b"), lambda b, m: f"{m[1]}.{b:04d}{m[2]}"),
    ]
    per_block = [
        {
            "id": r.collector,
            "kind": "http",
            "target": r.member or r.collector,
            "status": r.status.value,
            "step": r.step,
            "bound": dict(r.bound),
            "started_at": now.isoformat(),
        }
        for r in results
    ]
    block.repeated_collectors = _texts(per_block)
    block.manifest = {
        "format": "bundler/1.0",
        "tool": {"name": "bundler", "version": "0.1.0"},
        "created_at": (now + timedelta(seconds=5)).isoformat().replace("+00:00", "Z"),
        "bundle_id": f"bench-lyftdata-{side}",
        "profile": "lyftdata",
        "target": {"server_url": "https://lyftdata.example:3000"},
        "encryption": {"mode": "password"},
    }
    return block


BLOCKS: dict[str, Callable[[str], Block]] = {"flux": flux_block, "lyftdata": lyftdata_block}


def pair(product: str, size: int, out: Path = OUT) -> tuple[Path, Path]:
    """The (BEFORE, AFTER) directories of ``product`` at ``size`` workers, built when missing."""
    if size % BLOCK:
        raise ValueError(f"size must be a multiple of {BLOCK}")
    paths = []
    for side in ("before", "after"):
        path = out / f"{product}-{size}-{side}"
        if not (path / "manifest.json").exists():
            started = time.perf_counter()
            write_bundle(BLOCKS[product](side), size // BLOCK, path)
            print(f"built {path} in {time.perf_counter() - started:.1f} s", flush=True)
        paths.append(path)
    return paths[0], paths[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000")
    parser.add_argument("--products", default=",".join(PRODUCTS))
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    for product in args.products.split(","):
        for size in (int(s) for s in args.sizes.split(",")):
            before, after = pair(product, size, args.out)
            print(f"{product} {size}: {before} {after}")


if __name__ == "__main__":
    main()
