"""``python -m samples.pair``: the committed before/after pair for ``bundler diff`` (and serve).

One real Flux lab, two bundles collected by the real ``bundler doctor``:

* ``pairs/flux-hung-before.zip``: worker w2 hung (SIGSTOP) until the server
  marked it STALE and evicted it: the incident.
* ``pairs/flux-hung-after.zip``: w2 resumed (SIGCONT), back online, and a run
  pinned to it completed *after* the incident's bundle: the repair, proven.

Both must pass ``bundler verify`` and review clean, and ``bundler diff
BEFORE AFTER`` must read ``recovered`` (exit 0) and AFTER against BEFORE
``regressed`` (exit 1), or nothing is replaced. Both are sealed
with the sample password. Needs the Flux venv (``scripts/setup.sh``).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

from .bundler_cli import run_captured
from .catalog import PASSWORD_ENV, SAMPLE_PASSWORD, SAMPLES_DIR

PAIR_DIR = SAMPLES_DIR / "pairs"
BEFORE = PAIR_DIR / "flux-hung-before.zip"
AFTER = PAIR_DIR / "flux-hung-after.zip"
ENV = {PASSWORD_ENV: SAMPLE_PASSWORD}

if TYPE_CHECKING:
    from .flux_lab import FluxLab


class PairError(RuntimeError):
    """The pair did not come out as promised (nothing was replaced)."""


def _doctor(lab: FluxLab, bundle: Path, *extra: str) -> None:
    done = run_captured(
        "doctor", "--profile", "flux", "--server", lab.url, "--local",
        "--inventory", str(lab.write_inventory()), "--bundle", str(bundle),
        "--password-env", PASSWORD_ENV, *extra, env=ENV,
    )  # fmt: skip
    if not bundle.exists():
        raise PairError(f"doctor wrote no {bundle.name} (exit {done.returncode}): {done.stderr}")


def _verdict(before: Path, after: Path) -> tuple[int, str]:
    done = run_captured(
        "diff", str(before), str(after), "--format", "json", "--password-env", PASSWORD_ENV,
        env=ENV,
    )  # fmt: skip
    if not done.stdout.strip():
        raise PairError(f"bundler diff failed (exit {done.returncode}): {done.stderr}")
    return done.returncode, str(json.loads(done.stdout)["verdict"])


def after_the_repair() -> str:
    """A ``--since`` for AFTER: the next whole second, once it has begun (log times are seconds).

    AFTER proves the repair, so it reads the logs from the repair on: the
    incident's own eviction and reconnection lines stay in BEFORE, and do not
    read as a worker whose heartbeat keeps being cut.
    """
    cut = datetime.now(UTC).replace(microsecond=0) + timedelta(seconds=1)
    time.sleep(max(0.0, (cut - datetime.now(UTC)).total_seconds()))
    return cut.strftime("%Y-%m-%dT%H:%M:%SZ")


def build(workdir: Path) -> tuple[Path, Path]:
    """Collect both bundles from one lab into ``workdir``; check what diff says of them."""
    from .flux_lab import FluxLab, LabConfig, faults

    before, after = workdir / BEFORE.name, workdir / AFTER.name
    with FluxLab(LabConfig(), root=workdir / "lab") as lab:
        lab.api.run_to_end("hello_world", "before the incident")
        faults.hang_worker(lab, "w2", with_work=False)
        _doctor(lab, before)
        lab.workers["w2"].signal(signal.SIGCONT)
        lab.wait_for_status({"w2": "online"}, timeout_s=60)
        repaired = after_the_repair()
        lab.api.run_to_end("hello_world", "after the repair", require_worker="w2")
        _doctor(lab, after, "--since", repaired)
    for bundle in (before, after):
        for check in ("verify", "review"):
            done = run_captured(check, str(bundle), "--password-env", PASSWORD_ENV, env=ENV)
            if done.returncode != 0:
                raise PairError(f"bundler {check} {bundle.name}: exit {done.returncode}")
    for pair, wanted in (((before, after), (0, "recovered")), ((after, before), (1, "regressed"))):
        got = _verdict(*pair)
        if got != wanted:
            raise PairError(f"diff {pair[0].name} {pair[1].name} gave {got}, expected {wanted}")
    return before, after


def main() -> int:
    PAIR_DIR.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".staging-", dir=PAIR_DIR))
    try:
        before, after = build(staging)
        os.replace(before, BEFORE)
        os.replace(after, AFTER)
    except PairError as exc:
        print(f"samples.pair: error: {exc} (nothing was replaced)", file=sys.stderr)
        return 1
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    root = SAMPLES_DIR.parent
    print(f"wrote {BEFORE.relative_to(root)} and {AFTER.relative_to(root)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
