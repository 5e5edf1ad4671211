"""Each product's recovery acceptance checklist is in its own terms; the evaluation is one.

Every Flux report used to list LyftData's guide's seven checks ("valid runtime
authorization (external workers)", "no unresolved runtime-requirements blockers", a
canary, an external receipt), concepts Flux does not have, as "n/a" or worse. Here the
committed samples (real bundles) are analyzed as `bundler analyze` does, in JSON, text
and HTML: a Flux report names only Flux's checks, a LyftData report keeps the guide's
seven word for word.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from click.testing import CliRunner

from bundler.analyze.checklist import LADDER_CHECKLIST, PATH_PROOFS
from bundler.analyze.recovery import CODE_PATHS, acceptance_for
from bundler.cli import cli
from bundler.products.flux import PROFILE as FLUX
from bundler.products.lyftdata import PROFILE as LYFTDATA
from samples import catalog

GUIDE_SEVEN = [
    "recent heartbeat and system information",
    "valid runtime authorization (external workers)",
    "exact intended placement and deployment identity",
    "no unresolved runtime-requirements blockers",
    "adequate measured capacity for the target job",
    "successful canary (whether it was bounded is the operator's to confirm)",
    "external receipt where the job has an external effect",
]
"""The guide's "Recovery acceptance", as LyftData reports it (the canary's bound left to the
operator, as docs/lyftdata-contract.md records)."""

LYFTDATA_CONCEPTS = (
    "runtime authorization",
    "runtime-requirements",
    "deployment identity",
    "canary",
    "receipt",
    "system information",
    "measured capacity",
)
"""Words of the guide's checklist for what Flux does not have, or calls otherwise."""

FLUX_SAMPLES = [
    "flux-healthy",
    "flux-hung",
    "flux-saturated",
    "flux-unmatched",
    "flux-no-anonymous",
]


def _analyze(name: str, fmt: str) -> str:
    result = CliRunner().invoke(
        cli,
        ["analyze", str(catalog.BUNDLES_DIR / f"{name}.zip"), "--format", fmt,
         "--password-env", catalog.PASSWORD_ENV],
        env={catalog.PASSWORD_ENV: catalog.SAMPLE_PASSWORD, "COLUMNS": "400"},
    )  # fmt: skip
    assert result.exit_code in (0, 1, 3), result.output
    return result.stdout


def _report(name: str) -> dict[str, Any]:
    report: dict[str, Any] = json.loads(_analyze(name, "json"))
    assert report["targets"], name
    return report


def _foreign(texts: list[str]) -> list[str]:
    return [t for t in texts if any(word in t.lower() for word in LYFTDATA_CONCEPTS)]


@pytest.mark.parametrize("name", FLUX_SAMPLES)
def test_a_flux_analysis_lists_only_fluxs_checks(name: str) -> None:
    for target in _report(name)["targets"]:
        listed = [c["check"] for c in target["acceptance"]]
        assert _foreign(listed) == [], (name, target["worker"], target["job"])
        for layer in target["layers"]:
            for finding in layer["findings"]:
                assert _foreign(finding["acceptance"]) == [], (name, finding["code"])
        assert listed == [check.text for check in FLUX.acceptance_checklist.checks]


def test_fluxs_checks_name_what_flux_shows() -> None:
    """Online in GET /workers, registration, labels/requests, slots, a COMPLETED run."""
    checks = {c.proves.value: c.text for c in FLUX.acceptance_checklist.checks}
    assert set(checks) == {"heartbeat", "authorization", "placement", "capacity", "canary"}
    assert "GET /workers" in checks["heartbeat"]
    assert "heartbeat_timeout" in checks["heartbeat"]
    assert "registration accepted" in checks["authorization"]
    assert "affinity and requests" in checks["placement"]
    assert "free slot" in checks["capacity"]
    assert "COMPLETED" in checks["canary"]
    assert FLUX.acceptance_checklist.receipt_newer is None


@pytest.mark.parametrize("name", ["lyftdata-healthy", "lyftdata-outcome_no_receipt"])
def test_a_lyftdata_analysis_keeps_the_guides_seven_verbatim(name: str) -> None:
    for target in _report(name)["targets"]:
        assert [c["check"] for c in target["acceptance"]] == GUIDE_SEVEN


@pytest.mark.parametrize("fmt", ["text", "markdown", "html"])
def test_every_format_shows_fluxs_checklist(fmt: str) -> None:
    page = _analyze("flux-saturated", fmt)
    assert "a free slot on an eligible worker" in page
    for text in GUIDE_SEVEN:
        assert text not in page, (fmt, text)
    assert "external receipt" not in page


def test_a_generic_codes_checks_are_in_the_products_words() -> None:
    """The finding's "proven by" comes from the product's checklist, and names nothing the
    product lacks: Flux's runtime-requirements path has no check (Flux has no report)."""
    for code in CODE_PATHS:
        assert set(acceptance_for(code, FLUX.acceptance_checklist)) <= {
            c.text for c in FLUX.acceptance_checklist.checks
        }
        assert acceptance_for(code, LYFTDATA.acceptance_checklist) == acceptance_for(code)
    assert acceptance_for("REQUIREMENT_NOT_SATISFIED", FLUX.acceptance_checklist) == []
    assert acceptance_for("SLOTS_SATURATED", FLUX.acceptance_checklist) == [
        "a free slot on an eligible worker (below max_concurrent_executions)"
    ]
    assert set(CODE_PATHS.values()) <= set(PATH_PROOFS)
    assert LYFTDATA.acceptance_checklist is LADDER_CHECKLIST


def test_the_engine_default_is_the_ladders_checklist() -> None:
    """A bundle whose profile this bundler lacks is judged on the ladder's own seven."""
    assert [c.text for c in LADDER_CHECKLIST.checks] == GUIDE_SEVEN


@pytest.mark.parametrize(
    ("sample", "flux_code", "generic"),
    [
        ("flux-hung", "FLUX_WORKER_EVICTED", "WORKER_OFFLINE"),
        ("flux-saturated", "FLUX_SLOTS_SATURATED", "SLOTS_SATURATED"),
        ("flux-unmatched", "FLUX_NO_ELIGIBLE_WORKER", "NO_MATCHING_WORKER"),
        ("flux-starved", "FLUX_WORKER_UNHEALTHY", "WORKER_UNHEALTHY"),
    ],
)
def test_a_flux_finding_is_not_repeated_by_the_generic_one(
    sample: str, flux_code: str, generic: str
) -> None:
    """The same fact read twice on one rung, the generic finding in fewer words and with a
    generic recovery; the demo's Next steps listed WORKER_OFFLINE beside FLUX_WORKER_EVICTED."""
    seen = [
        {f["code"] for f in layer["findings"]}
        for target in _report(sample)["targets"]
        for layer in target["layers"]
    ]
    assert any(flux_code in codes for codes in seen)
    assert not any(flux_code in codes and generic in codes for codes in seen)
