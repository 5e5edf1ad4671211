"""The committed before/after pair reads as promised: recovered one way, regressed the other."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from bundler.products.flux import PROFILE as FLUX
from samples.catalog import PASSWORD_ENV, SAMPLE_PASSWORD
from samples.pair import AFTER, BEFORE

ENV = os.environ | {PASSWORD_ENV: SAMPLE_PASSWORD}


def diff(before: str, after: str) -> tuple[int, dict]:
    result = subprocess.run(
        [sys.executable, "-m", "bundler", "diff", before, after, "--format", "json",
         "--password-env", PASSWORD_ENV],
        capture_output=True, text=True, env=ENV, timeout=120, check=False,
    )  # fmt: skip
    return result.returncode, json.loads(result.stdout)


@pytest.mark.parametrize(
    ("before", "after", "code", "verdict", "heartbeat"),
    [(BEFORE, AFTER, 0, "recovered", "fixed"), (AFTER, BEFORE, 1, "regressed", "newly_failing")],
)
def test_the_committed_pair(before, after, code: int, verdict: str, heartbeat: str) -> None:
    got_code, report = diff(str(before), str(after))
    assert (got_code, report["verdict"]) == (code, verdict)
    swapped = [w for w in report["warnings"] if "were the two swapped?" in w]
    assert len(swapped) == (1 if before == AFTER else 0)
    assert report["warnings"] == swapped  # one lab: the same server
    (w2,) = [t for t in report["targets"] if t["worker"] == "w2"]
    assert {layer["layer"]: layer["change"] for layer in w2["layers"]}["heartbeat"] == heartbeat


@pytest.mark.parametrize("bundle", [BEFORE, AFTER], ids=lambda b: b.name)
def test_the_pair_holds_evidence_of_this_bundlers_normalizer(bundle) -> None:
    """Evidence re-derived from raw/ is what is stored (if not: python -m samples.pair)."""
    result = subprocess.run(
        [sys.executable, "-m", "bundler", "analyze", str(bundle), "--format", "json",
         "--password-env", PASSWORD_ENV],
        capture_output=True, text=True, env=ENV, timeout=120, check=False,
    )  # fmt: skip
    notes = json.loads(result.stdout)["fleet_findings"]
    (rederived,) = [f for f in notes if f["code"] == "EVIDENCE_REDERIVED"]
    assert rederived["details"]["differs"] == []


def test_the_flux_pair_is_judged_on_fluxs_checklist() -> None:
    """Flux's checks in Flux's terms, and a run newer than BEFORE; no receipt, no canary
    bound, no runtime requirements: concepts of LyftData's guide Flux does not have."""
    code, report = diff(str(BEFORE), str(AFTER))
    assert code == 0
    checks = {c["check"]: c["status"] for c in report["acceptance"]}
    assert not any(word in check for check in checks for word in ("receipt", "requirements"))
    flux = FLUX.acceptance_checklist
    assert list(checks) == [*(c.text for c in flux.checks), flux.canary_newer]
    assert checks[flux.canary_newer] == "pass"
