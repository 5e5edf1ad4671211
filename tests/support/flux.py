"""Pytest fixtures for a real Flux: the lab, and a bundle collected from it.

``flux_install`` finds the Flux venv (``BUNDLER_FLUX_VENV``, else the
checkout's ``.cache/flux-venv``, created through ``scripts/setup.sh`` when
missing); a machine without Python 3.12 skips locally and fails in CI
(``tests/support/requirements.need``). ``flux_lab`` starts a lab and always
stops it, also when the test fails. ``collect_bundle`` runs the real
``bundler doctor --local`` against a lab and extracts the sealed bundle, for
tests that read what collection wrote.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from samples.flux_lab import FluxInstall, FluxLab, FluxUnavailable, LabConfig, find_flux
from schemas import AnalysisReport, Finding, Layer, LayerStatus, TargetReport

from .requirements import need

BUNDLE_PASSWORD_ENV = "FLUX_TEST_BUNDLE_PASSWORD"
BUNDLE_ENV = os.environ | {BUNDLE_PASSWORD_ENV: "flux tests: correct horse battery staple"}
"""The environment every bundler command here runs in: the bundle password by name only."""


@pytest.fixture(scope="session")
def flux_install() -> FluxInstall:
    try:
        install = find_flux(create=True)
    except FluxUnavailable as exc:
        need(False, f"real Flux unavailable: {exc}")
        raise
    return install


LabFactory = Callable[..., FluxLab]


@pytest.fixture
def flux_lab_factory(flux_install: FluxInstall, tmp_path: Path) -> Iterator[LabFactory]:
    """Start labs on demand (``factory(config)``); every one is stopped at teardown."""
    started: list[FluxLab] = []

    def start(config: LabConfig | None = None) -> FluxLab:
        lab = FluxLab(config, root=tmp_path / f"lab{len(started)}", flux=flux_install)
        started.append(lab)
        lab.start()
        return lab

    try:
        yield start
    finally:
        for lab in reversed(started):
            lab.stop()


@pytest.fixture
def flux_lab(flux_lab_factory: LabFactory) -> FluxLab:
    """A default lab: a server and two workers (w1 zone=a tier=gold, w2 zone=b), online."""
    return flux_lab_factory()


def run_bundler(*args: str, timeout: float = 240) -> subprocess.CompletedProcess[str]:
    """``python -m bundler ARGS`` in a child process, as a user runs it (output captured)."""
    return subprocess.run(
        [sys.executable, "-m", "bundler", *args],
        capture_output=True,
        text=True,
        env=BUNDLE_ENV,
        timeout=timeout,
        check=False,
    )


def doctor_lab(lab: FluxLab, bundle: Path) -> subprocess.CompletedProcess[str]:
    """``bundler doctor --profile flux --local`` against ``lab``, sealed into ``bundle``."""
    inventory = lab.write_inventory()
    return run_bundler(
        "doctor", "--profile", "flux", "--server", lab.url, "--inventory", str(inventory),
        "--local", "--bundle", str(bundle), "--password-env", BUNDLE_PASSWORD_ENV,
    )  # fmt: skip


def analyze_json(bundle: Path, expect_rc: int | None = None) -> AnalysisReport:
    """``bundler analyze --format json`` of ``bundle``, parsed; with ``expect_rc``, the exit
    code it must end with (the verdict's)."""
    analyzed = run_bundler(
        "analyze", str(bundle), "--format", "json", "--password-env", BUNDLE_PASSWORD_ENV
    )
    if expect_rc is not None:
        assert analyzed.returncode == expect_rc, analyzed.stdout[-3000:] + analyzed.stderr
    return AnalysisReport.model_validate_json(analyzed.stdout)


def rung(target: TargetReport, layer: Layer) -> tuple[LayerStatus, list[Finding]]:
    """The status and findings of ``target``'s one rung ``layer``."""
    (found,) = [r for r in target.layers if r.name is layer]
    return found.status, found.findings


def extract(bundle: Path, folder: Path) -> Path:
    """``bundler extract`` of ``bundle`` into ``folder`` (which must not exist yet)."""
    unpacked = run_bundler(
        "extract", str(bundle), "--to", str(folder), "--password-env", BUNDLE_PASSWORD_ENV
    )
    assert unpacked.returncode == 0, unpacked.stderr
    return folder


def collect_bundle(lab: FluxLab, workdir: Path) -> Path:
    """Collect ``lab`` through the real doctor and return the extracted bundle's folder."""
    bundle = workdir / "flux.zip"
    doctor = doctor_lab(lab, bundle)
    assert bundle.exists(), doctor.stderr[-2000:]
    return extract(bundle, workdir / "extracted")
