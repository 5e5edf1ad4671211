"""Rung 5 rules: every runtime-requirements blocker named, with the guide's repair."""

from __future__ import annotations

import pytest

from bundler.analyze.rules import requirements as rules
from bundler.products.flux import PROFILE as FLUX
from bundler.products.lyftdata import PROFILE as LYFTDATA
from schemas import LayerStatus, Recovery
from schemas.evidence import Blocker, Requirement, RequirementsEvidence, RequirementsReport
from tests.support.evidence import Fleet

from .conftest import codes, judge, status


def _report(fleet: Fleet) -> RequirementsReport:
    assert fleet.requirements is not None
    return fleet.requirements.reports[0]


def test_no_blockers_pass(fleet: Fleet) -> None:
    assert codes(judge(rules.runtime_requirements, fleet, job="ingest")) == [
        "REQUIREMENTS_SATISFIED"
    ]


@pytest.mark.parametrize(
    ("code", "kind", "repair"),
    [
        ("CREDENTIAL_NOT_BOUND", "credential", "Bind the required credential to the job."),
        (
            "CREDENTIAL_WORKER_NOT_ALLOWED",
            "credential_allowed_workers",
            "Add the worker to the credential's allowed workers.",
        ),
        (
            "DB_ACL_DENIED",
            "database_acl",
            "Update the worker's database settings or the job's exact ACL.",
        ),
        (
            "SOURCE_PATH_MISSING",
            "source_prerequisite",
            "Repair the source's setup on the worker.",
        ),
        ("NOT_STAGED", "binding", "Stage and deploy the required job."),
    ],
)
def test_each_blocker_is_named_with_its_repair(
    fleet: Fleet, code: str, kind: str, repair: str
) -> None:
    report = _report(fleet)
    report.requirements.append(Requirement(id="r1", kind=kind, status="missing", code=code))
    report.blockers.append(Blocker(code=code, requirement="r1", message="it is broken"))
    result = judge(rules.runtime_requirements, fleet, job="ingest")
    assert status(result) is LayerStatus.FAIL
    assert codes(result) == [code]
    assert result is not None
    finding = result.findings[0]
    assert finding.recovery is not None
    assert finding.recovery.summary == repair
    assert repair not in finding.recovery.steps, "the repair is its summary, said once"
    assert "blocked: it is broken" in finding.message, "the code heads the line, said once"
    assert any("converge" in c for c in finding.recovery.cautions)
    assert finding.evidence[0].label() == "evidence/requirements.json#/reports/0/blockers/0"


def test_several_blockers_are_all_reported(fleet: Fleet) -> None:
    report = _report(fleet)
    report.blockers += [Blocker(code="CREDENTIAL_NOT_BOUND"), Blocker(code="DB_ACL_DENIED")]
    assert codes(judge(rules.runtime_requirements, fleet, job="ingest")) == [
        "CREDENTIAL_NOT_BOUND",
        "DB_ACL_DENIED",
    ]


def test_trust_root_blocker_points_at_trust_operations(fleet: Fleet) -> None:
    _report(fleet).blockers.append(Blocker(code="WORKER_AUTH_TRUST_ROOT_INVALID"))
    result = judge(rules.runtime_requirements, fleet, job="ingest")
    assert codes(result) == ["TRUST_ROOT_PROBLEM"]
    assert result is not None
    rec = result.findings[0].recovery
    assert rec is not None
    assert any("trust-reset" in s for s in rec.steps)
    assert any("auth-cache" in c for c in rec.cautions)


def _recovery_text(rec: Recovery | None) -> str:
    assert rec is not None
    return " ".join([rec.summary, rec.reference or "", *rec.steps, *rec.cautions])


@pytest.mark.parametrize("blocker", ["WORKER_AUTH_TRUST_ROOT_INVALID", "SOURCE_PATH_MISSING"])
def test_blocker_paths_are_the_products_own_words(fleet: Fleet, blocker: str) -> None:
    """The trust-root and prerequisites paths were read from the generic table, so a
    product could not word them and a Flux blocker cited LyftData's guide. Now each
    product's profile words them: Flux's names no LyftData, LyftData's cites its guide."""
    _report(fleet).blockers.append(Blocker(code=blocker))
    flux = judge(
        rules.runtime_requirements, fleet, job="ingest", recovery_paths=FLUX.recovery_paths
    )
    lyft = judge(
        rules.runtime_requirements, fleet, job="ingest", recovery_paths=LYFTDATA.recovery_paths
    )
    assert flux is not None
    assert lyft is not None
    flux_text = _recovery_text(flux.findings[0].recovery)
    assert "lyftdata" not in flux_text.lower()
    assert "Worker Recovery and Serviceability" not in flux_text
    assert "LyftData's Worker Recovery and Serviceability guide" in _recovery_text(
        lyft.findings[0].recovery
    )
    own = Recovery(summary="ours", steps=["inspect", "rerun"], reference="our page")
    mine = judge(
        rules.runtime_requirements,
        fleet,
        job="ingest",
        recovery_paths={"trust-root": own, "prerequisites": own},
    )
    assert mine is not None
    assert mine.findings[0].recovery is not None
    assert mine.findings[0].recovery.reference == "our page"


@pytest.mark.parametrize(
    ("code", "kind", "guide", "neutral"),
    [
        ("SOURCE_PATH_MISSING", "source_prerequisite",
         "Repair the source or Provider Pack setup journey.",
         "Repair the source's setup on the worker."),
        ("DB_ACL_DENIED", "database_acl",
         "Update worker database settings or the exact job ACL.",
         "Update the worker's database settings or the job's exact ACL."),
    ],
)  # fmt: skip
def test_a_blockers_repair_is_in_the_products_words_and_neutral_without_them(
    fleet: Fleet, code: str, kind: str, guide: str, neutral: str
) -> None:
    """The per-blocker repair was always the neutral sentence, so a LyftData blocker lost the
    guide's words (its Provider Pack); a product without words of its own (Flux) keeps the
    neutral one, for a blocker and for an unsatisfied requirement alike."""
    report = _report(fleet)
    report.requirements.append(Requirement(id="r1", kind=kind, status="missing", code=code))
    report.blockers.append(Blocker(code=code, requirement="r1"))
    report.requirements.append(Requirement(id="r2", kind=kind, status="denied", code=code))
    for profile, repair in ((LYFTDATA, guide), (FLUX, neutral)):
        result = judge(
            rules.runtime_requirements,
            fleet,
            job="ingest",
            recovery_paths=profile.recovery_paths,
            requirement_repairs=getattr(profile, "requirement_repairs", None),
        )
        assert result is not None
        blocker, unsatisfied = result.findings
        assert blocker.recovery is not None
        assert blocker.recovery.summary == repair
        assert repair not in blocker.recovery.steps
        assert unsatisfied.code == "REQUIREMENT_NOT_SATISFIED"
        assert unsatisfied.details["repair"] == repair


def test_unsatisfied_requirement_without_blocker_fails(fleet: Fleet) -> None:
    _report(fleet).requirements.append(Requirement(id="r2", kind="database_acl", status="denied"))
    assert codes(judge(rules.runtime_requirements, fleet, job="ingest")) == [
        "REQUIREMENT_NOT_SATISFIED"
    ]


def test_unprobed_requirement_is_unknown_not_failed(fleet: Fleet) -> None:
    _report(fleet).requirements.append(
        Requirement(
            id="dbacl",
            kind="database_acl",
            status="unknown",
            message="credential not released to worker",
        )
    )
    result = judge(rules.runtime_requirements, fleet, job="ingest")
    assert status(result) is LayerStatus.UNKNOWN


def test_missing_report_is_unknown_and_not_applicable_products(fleet: Fleet) -> None:
    assert codes(judge(rules.runtime_requirements, fleet, worker="w2", job="ingest")) == [
        "REQUIREMENTS_REPORT_MISSING"
    ]
    fleet.requirements = RequirementsEvidence(applicable=False)
    assert status(judge(rules.runtime_requirements, fleet, job="ingest")) is (
        LayerStatus.NOT_APPLICABLE
    )
    fleet.requirements = None
    assert status(judge(rules.runtime_requirements, fleet, job="ingest")) is LayerStatus.UNKNOWN


def test_worker_only_target_sees_its_blockers(fleet: Fleet) -> None:
    assert status(judge(rules.runtime_requirements, fleet, worker="w2")) is (
        LayerStatus.NOT_APPLICABLE
    )
    _report(fleet).blockers.append(Blocker(code="CREDENTIAL_NOT_BOUND"))
    assert codes(judge(rules.runtime_requirements, fleet, worker="w1")) == ["CREDENTIAL_NOT_BOUND"]
