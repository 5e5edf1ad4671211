"""Pytest fixtures for a real Flux: the lab, and a bundle collected from it.

``flux_install`` finds the Flux venv (``BUNDLER_FLUX_VENV``, else the
checkout's ``.cache/flux-venv``, created through ``scripts/setup.sh`` when
missing); a machine without Python 3.12 skips locally and fails in CI
(``tests/support/requirements.need``). ``flux_lab`` starts a lab and always
stops it, also when the test fails. ``collect_lab`` and ``analyze_source``
are the component-level path (plan -> raw members -> evidence -> rules),
used until ``bundler doctor`` and ``bundler analyze`` land on main.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from bundler.analyze.api import EvidenceSet, Timeline
from bundler.collect.inventory import load_inventory
from bundler.products.flux import PROFILE
from bundler.source import MemorySource
from samples.flux_lab import FluxInstall, FluxLab, FluxUnavailable, LabConfig, find_flux

from .ladder import MiniReport, walk
from .plan_runner import Collected, collect
from .requirements import need


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


def collect_lab(lab: FluxLab) -> Collected:
    """Run the Flux plan against the lab (the stand-in for `doctor --local`)."""
    inventory = load_inventory(lab.write_inventory())
    return collect(PROFILE.plan(), server_url=lab.url, inventory=inventory)


def bundle_source(collected: Collected) -> MemorySource:
    """Normalize into the collected source, as ``doctor`` would: evidence/*.json added."""
    for document in PROFILE.normalize(collected.context()):
        collected.source.add(document.member_path, document.model_dump(mode="json"))
    return collected.source


def analyze_source(source: MemorySource) -> MiniReport:
    evidence = EvidenceSet(source)
    timeline = Timeline(list(PROFILE.parse_logs(evidence)))
    return walk(evidence, PROFILE.rules(), timeline)
