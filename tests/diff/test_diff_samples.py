"""``bundler diff`` on committed samples: formats, the published schema, and refusals.

The samples are separate labs, not one fleet before and after, which makes
them good for what must be refused or doubted: another product (exit 2),
another server and a BEFORE newer than AFTER (warnings, and never recovered).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import jsonschema
from click.testing import CliRunner

from bundler.cli import cli
from bundler.diff.sides import open_side
from samples.catalog import BUNDLES_DIR, PASSWORD_ENV, SAMPLE_PASSWORD
from schemas._export import JSON_DIR
from schemas.evidence import CapacityEvidence

ENV = os.environ | {PASSWORD_ENV: SAMPLE_PASSWORD}


def diff(*args: str, env: dict[str, str] = ENV) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bundler", "diff", *args, "--password-env", PASSWORD_ENV],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )


def sample(name: str) -> str:
    return str(BUNDLES_DIR / f"{name}.zip")


def test_json_validates_against_the_published_schema() -> None:
    result = diff(sample("flux-healthy"), sample("flux-hung"), "--format", "json")
    assert result.returncode == 1, result.stderr
    schema = json.loads((JSON_DIR / "diff-report.schema.json").read_text())
    report = json.loads(result.stdout)
    jsonschema.validate(report, schema)
    assert report["verdict"] == "regressed"
    assert any("server differs" in w for w in report["warnings"])


def test_text_and_markdown_lead_with_the_verdict_and_list_the_checklist() -> None:
    text = diff(sample("flux-healthy"), sample("flux-hung"))
    assert text.stdout.startswith("REGRESSED:")
    assert "heartbeat: pass -> fail (REGRESSION)" in text.stdout
    assert "Recovery acceptance (on AFTER):" in text.stdout
    assert "bundler: warning: the server differs" in text.stderr
    markdown = diff(sample("flux-healthy"), sample("flux-hung"), "--format", "markdown")
    assert markdown.stdout.startswith("## bundler diff: REGRESSED")
    assert "| `FLUX_WORKER_EVICTED` |" in markdown.stdout
    assert "### Recovery acceptance (on AFTER)" in markdown.stdout


def test_a_swapped_pair_is_warned_about() -> None:
    result = diff(sample("lyftdata-license_expired"), sample("lyftdata-healthy"))
    assert "newer than AFTER" in result.stderr
    # the sample's canary ran before the incident's bundle: it proves nothing about a repair
    assert "[FAIL] successful canary newer than BEFORE" in result.stdout
    assert result.returncode == 1


def test_two_labs_never_read_as_a_recovery() -> None:
    """Each sample is its own simulator (another server): AFTER healthy proves nothing.

    Each simulator dates its canary a few minutes before its own collection, so whether
    AFTER's canary is newer than BEFORE depends on how far apart the two samples were
    regenerated. If it is, only the doubt keeps the pair from recovered: inconclusive.
    If not, those checks fail too: still failing. Never recovered.
    """
    result = diff(sample("lyftdata-canary_stale"), sample("lyftdata-healthy"), "--format", "json")
    report = json.loads(result.stdout)
    failing = [c["check"] for c in report["acceptance"] if c["status"] == "fail"]
    assert all("newer than BEFORE" in check for check in failing), failing
    expected = ("still_failing", 1) if failing else ("inconclusive", 3)
    assert (report["verdict"], result.returncode) == expected, result.stderr
    assert any("server differs" in w for w in report["warnings"])
    assert any("another server" in d for d in report["doubts"])


def test_two_products_cannot_be_compared() -> None:
    result = diff(sample("flux-healthy"), sample("lyftdata-healthy"))
    assert result.returncode == 2
    assert "diff compares two bundles of the same fleet" in result.stderr
    assert result.stdout == ""


def test_one_collection_given_twice_is_refused(tmp_path: Path) -> None:
    """A bundle against itself (or against its own extracted folder) proves nothing: a usage
    error, not "still failing" (its canary is not newer than itself) about a healthy fleet."""
    result = diff(sample("flux-healthy"), sample("flux-healthy"))
    assert result.returncode == 2, result.stdout
    assert "are the same collection (bundle " in result.stderr
    assert result.stdout == ""
    folder = tmp_path / "healthy"
    extracted = CliRunner().invoke(
        cli,
        ["extract", sample("flux-healthy"), "--to", str(folder), "--password-env", PASSWORD_ENV],
        env={PASSWORD_ENV: SAMPLE_PASSWORD},
    )
    assert extracted.exit_code == 0, extracted.output
    again = diff(sample("flux-healthy"), str(folder))
    assert again.returncode == 2
    assert "same collection" in again.stderr


def test_a_bundle_that_cannot_be_opened_is_exit_2() -> None:
    result = diff(sample("flux-healthy"), sample("flux-hung"), env=ENV | {PASSWORD_ENV: "wrong"})
    assert result.returncode == 2
    assert result.stderr.startswith("bundler: error:")
    missing = diff(sample("flux-healthy"), str(BUNDLES_DIR / "no-such.zip"))
    assert missing.returncode == 2


def test_each_side_is_rederived_from_raw_like_analyze(tmp_path: Path) -> None:
    """A side whose stored capacity document is gone still has capacity: read again from raw/."""
    folder = tmp_path / "after"
    extracted = CliRunner().invoke(
        cli,
        [
            "extract",
            sample("lyftdata-metrics_disabled"),
            "--to",
            str(folder),
            "--password-env",
            PASSWORD_ENV,
        ],
        env={PASSWORD_ENV: SAMPLE_PASSWORD},
    )
    assert extracted.exit_code == 0, extracted.output
    (folder / CapacityEvidence.member_path).unlink()
    with open_side(folder, None) as side:
        assert side.capacity is not None
        assert side.report.fleet_findings[0].code == "EVIDENCE_REDERIVED"
        codes = {
            finding.code
            for target in side.report.targets
            for layer in target.layers
            for finding in layer.findings
        }
        assert "METRICS_NOT_ENABLED" in codes
