"""``python -m samples.flux_lab``: run the Flux lab by hand, or demo a scenario.

::

    python -m samples.flux_lab list                        # the nine scenarios
    python -m samples.flux_lab up --scenario hung          # a live faulty fleet, until Ctrl-C
    python -m samples.flux_lab demo --scenario unmatched   # doctor + analyze on it, printed

``demo`` drives the real ``bundler doctor`` and ``bundler analyze``
(``--local`` with the lab's inventory); its bundles are sealed with the
password in ``BUNDLER_SAMPLE_PASSWORD`` (default ``bundler-sample``). The
committed sample bundles are rebuilt by ``python -m samples regenerate``.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

from .lab import FluxLab
from .scenarios import SCENARIOS, Scenario, scenario
from .venv import FluxUnavailable

PASSWORD_ENV = "BUNDLER_SAMPLE_PASSWORD"  # noqa: S105 (a variable name)
DEFAULT_PASSWORD = "bundler-sample"  # noqa: S105 (lab data only; documented)


def _bundler(*args: str) -> subprocess.CompletedProcess[str]:
    env = os.environ | {PASSWORD_ENV: os.environ.get(PASSWORD_ENV, DEFAULT_PASSWORD)}
    return subprocess.run(
        [sys.executable, "-m", "bundler", *args], env=env, text=True, capture_output=True,
        check=False,
    )  # fmt: skip


def doctor_args(lab: FluxLab, bundle: Path) -> list[str]:
    return [
        "doctor", "--profile", "flux", "--server", lab.url, "--inventory",
        str(lab.write_inventory()), "--local", "--bundle", str(bundle),
        "--password-env", PASSWORD_ENV,
    ]  # fmt: skip


def _chosen(names: list[str] | None) -> list[Scenario]:
    return [scenario(n) for n in names] if names else list(SCENARIOS)


def cmd_list(_: argparse.Namespace) -> int:
    for item in SCENARIOS:
        verdict = f"{item.expect_layer} {item.expect_code}" if item.expect_layer else "healthy"
        print(f"{item.name:14} {verdict:45} {item.title}")
    return 0


def cmd_up(args: argparse.Namespace) -> int:
    item = scenario(args.scenario)
    with FluxLab(item.config, keep=True) as lab:
        item.inject(lab)
        bundle = lab.root / f"flux-{item.name}.zip"
        print(f"Flux lab up ({item.name}): {lab.url}\n  directory: {lab.root}")
        print(f"  inventory: {lab.write_inventory()}")
        print(f"\n  {PASSWORD_ENV}=... bundler " + " ".join(doctor_args(lab, bundle)))
        print(f"  bundler analyze {bundle} --password-env {PASSWORD_ENV}\n\nCtrl-C stops it.")
        stop = threading.Event()
        signal.signal(signal.SIGTERM, lambda *_: stop.set())
        with contextlib.suppress(KeyboardInterrupt):
            stop.wait()
    return 0


def _run(item: Scenario, out: Path, *, show: bool) -> int:
    with FluxLab(item.config) as lab:
        item.inject(lab)
        bundle = out / f"flux-{item.name}.zip"
        doctor = _bundler(*doctor_args(lab, bundle))
    if not bundle.exists():
        print(f"{item.name}: doctor wrote no bundle (exit {doctor.returncode}):\n{doctor.stderr}")
        return 1
    report = _bundler("analyze", str(bundle), "--format", "json", "--password-env", PASSWORD_ENV)
    (out / f"flux-{item.name}.analysis.json").write_text(report.stdout)
    if show:
        text = _bundler("analyze", str(bundle), "--password-env", PASSWORD_ENV)
        print(text.stdout)
    expected = item.expect_layer or "none (healthy)"
    print(f"{item.name}: bundle {bundle}; expected first failed layer: {expected}")
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    out = Path(args.out or ".").resolve()
    out.mkdir(parents=True, exist_ok=True)
    return max(_run(item, out, show=True) for item in _chosen(args.scenario))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m samples.flux_lab",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("list", help="list the scenarios").set_defaults(func=cmd_list)
    up = sub.add_parser("up", help="start a lab with a scenario's fault and keep it running")
    up.add_argument("--scenario", default="healthy")
    up.set_defaults(func=cmd_up)
    demo = sub.add_parser("demo", help="doctor + analyze on scenarios, printed")
    demo.add_argument("--scenario", action="append")
    demo.add_argument("--out", help="where bundles go [current directory]")
    demo.set_defaults(func=cmd_demo)
    args = parser.parse_args(argv)
    try:
        result: int = args.func(args)
    except (FluxUnavailable, KeyError) as exc:
        print(f"flux lab: {exc.args[0] if exc.args else exc}", file=sys.stderr)
        return 2
    return result


if __name__ == "__main__":
    sys.exit(main())
