"""Every committed sample bundle opens, verifies, reviews clean and analyzes as its table says.

samples/README.md documents, for each bundle, the verdict, first failed layer
and main finding ``bundler analyze`` gives. This test recomputes all of them
from the committed bundles with the real commands, so any drift (an analyzer
change, a bundle-format change, a hand-edited table, a bundle replaced
without its catalog) fails here until ``python -m samples regenerate`` is run.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from bundler.cli import cli
from samples import catalog
from samples.catalog import SampleEntry, outcome_of
from samples.flux_lab.scenarios import SCENARIOS
from samples.lyftdata_sim.loader import scenario_names
from tests.support.sample_bundles import private_identity

ENTRIES = catalog.load_catalog() if catalog.CATALOG_PATH.exists() else []
ANALYZE_EXIT = {"healthy": 0, "degraded": 0, "blocked": 1, "inconclusive": 3}


@pytest.fixture(scope="module")
def identity(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The committed sample identity, copied 0600 (a fresh clone checks it out 0644)."""
    return private_identity(tmp_path_factory.mktemp("keys"))


def bundler(*args: str) -> Result:
    return CliRunner().invoke(
        cli, list(args), env={catalog.PASSWORD_ENV: catalog.SAMPLE_PASSWORD}, catch_exceptions=False
    )


def test_there_is_a_sample_for_every_scenario() -> None:
    documented = {(e.product, e.scenario) for e in ENTRIES if e.opening == "password"}
    expected = {("flux", s.name) for s in SCENARIOS}
    expected |= {("lyftdata", name) for name in scenario_names()}
    assert documented == expected


def test_one_sample_is_sealed_to_the_public_sample_identity() -> None:
    sealed = [e for e in ENTRIES if e.opening == "identity"]
    assert sealed, "no sample is sealed to samples/keys/sample-identity.pub"
    public = Path(f"{catalog.IDENTITY_PATH}.pub").read_text()
    assert public.startswith("bundler-x25519 ")
    assert "PUBLIC TEST KEY" in public
    assert "PUBLIC TEST KEY" in catalog.IDENTITY_PATH.read_text()


def test_readme_table_is_exactly_what_the_catalog_renders() -> None:
    readme = catalog.README_PATH.read_text()
    assert catalog.table_section(readme) == catalog.render_table(ENTRIES)


def test_samples_stay_small() -> None:
    total = sum((catalog.BUNDLES_DIR / e.file).stat().st_size for e in ENTRIES)
    assert total < 4 * 1024 * 1024, f"samples take {total} bytes: prefer shorter log windows"


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e.file)
def test_sample_opens_verifies_reviews_and_analyzes_as_documented(
    entry: SampleEntry, identity: Path
) -> None:
    bundle = catalog.BUNDLES_DIR / entry.file
    assert bundle.stat().st_size == entry.size_bytes
    assert catalog.file_sha256(bundle) == entry.sha256, "bundle replaced without its catalog"
    opening = entry.open_args(identity)

    verified = bundler("verify", str(bundle), *opening)
    assert verified.exit_code == 0, verified.output
    reviewed = bundler("review", str(bundle), *opening)
    assert reviewed.exit_code == 0, reviewed.output

    analyzed = bundler("analyze", str(bundle), "--format", "json", *opening)
    assert analyzed.exit_code == ANALYZE_EXIT[entry.verdict], analyzed.output[-2000:]
    found = outcome_of(json.loads(analyzed.stdout))
    assert (found.verdict, found.first_failed_layer, found.code) == (
        entry.verdict,
        entry.first_failed_layer,
        entry.code,
    )
    assert list(found.codes) == entry.codes
    assert rederived_differs(json.loads(analyzed.stdout)) == [], (
        "the stored evidence is older than this bundler's normalizer: python -m samples regenerate"
    )


def rederived_differs(report: dict[str, Any]) -> list[str]:
    """The stored evidence/ documents a re-derivation from raw/ reads differently."""
    return [
        member
        for finding in report["fleet_findings"]
        if finding["code"] == "EVIDENCE_REDERIVED"
        for member in finding["details"]["differs"]
    ]


def test_identity_sample_does_not_open_with_the_sample_password() -> None:
    sealed = next(e for e in ENTRIES if e.opening == "identity")
    refused = bundler(
        "inspect", str(catalog.BUNDLES_DIR / sealed.file), "--password-env", "BUNDLE_PW"
    )
    assert refused.exit_code == 2
