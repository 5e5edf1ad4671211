"""The engine's own decisions: stop at the first failure, silence is unknown, rule bugs show."""

from __future__ import annotations

from datetime import timedelta

import pytest

from bundler.analyze.api import RuleContext, RuleResult, TimelineEvent, rule
from bundler.analyze.engine import analyze
from bundler.analyze.ladder import evaluate, overall, walk
from bundler.analyze.rules import GENERIC_RULES
from bundler.errors import UsageError
from schemas import Layer, LayerStatus, Verdict
from schemas.evidence import ConnectionState, JobPhase, JobRequirements
from tests.support.evidence import T0, Fleet, StubProfile, job, target, without_optional_rungs
from tests.support.evidence import worker as worker_status


def _ctx(fleet: Fleet, worker: str | None = "w1", job_name: str | None = "ingest") -> RuleContext:
    from bundler.analyze.api import Timeline

    return RuleContext(
        evidence=fleet.evidence(),
        target=target(worker, fleet.job(job_name) if job_name else None),
        timeline=Timeline(),
    )


def test_healthy_fleet_every_layer_passes(fleet: Fleet) -> None:
    report = analyze(fleet.evidence())
    assert report.verdict is Verdict.HEALTHY
    assert report.first_failed_layer is None
    ingest = report.targets[0]
    assert (ingest.worker, ingest.job) == ("w1", "ingest")
    assert [lr.status for lr in ingest.layers] == [LayerStatus.PASS] * 8
    assert {c.status for c in ingest.acceptance} == {"pass"}


def test_stops_at_first_failed_layer_and_skips_the_rest(fleet: Fleet) -> None:
    fleet.worker("w1").connection = ConnectionState.OFFLINE
    layers = walk(_ctx(fleet), GENERIC_RULES)
    statuses = {lr.name: lr for lr in layers}
    assert statuses[Layer.SERVER].status is LayerStatus.PASS
    assert statuses[Layer.HEARTBEAT].status is LayerStatus.FAIL
    for layer in Layer.ordered()[2:]:
        assert statuses[layer].status is LayerStatus.SKIPPED
        assert statuses[layer].blocked_by is Layer.HEARTBEAT
        assert statuses[layer].findings == []


def test_a_rung_nobody_answers_is_unknown_never_pass(fleet: Fleet) -> None:
    result = evaluate(Layer.OUTCOME, [], _ctx(fleet))
    assert result.status is LayerStatus.UNKNOWN
    assert result.findings[0].code == "NO_EVIDENCE"


def test_missing_evidence_makes_the_verdict_inconclusive(fleet: Fleet) -> None:
    fleet.outcome = None
    fleet.job("ingest").phase = JobPhase.RUNNING
    report = analyze(fleet.evidence(), job="ingest")
    assert report.verdict is Verdict.INCONCLUSIVE
    assert report.targets[0].layers[-1].status is LayerStatus.UNKNOWN


@rule(Layer.CAPACITY)
def _exploding(ctx: RuleContext) -> RuleResult | None:
    raise ZeroDivisionError("division by zero in a rule")


@rule(Layer.CAPACITY)
def _wrong_type(ctx: RuleContext) -> RuleResult | None:
    return "pass"  # type: ignore[return-value]


@pytest.mark.parametrize("broken", [_exploding, _wrong_type])
def test_rule_errors_are_explicit_unknowns(fleet: Fleet, broken: object) -> None:
    profile = StubProfile(extra_rules=[broken])  # type: ignore[list-item]
    report = analyze(fleet.evidence(), profile=profile, job="ingest")
    capacity = report.targets[0].layers[Layer.CAPACITY.index]
    assert capacity.status is LayerStatus.UNKNOWN  # generic rule passed; the broken one cannot
    errors = [f for f in capacity.findings if f.code == "RULE_ERROR"]
    assert len(errors) == 1
    assert report.verdict is Verdict.INCONCLUSIVE


def test_rule_error_never_hides_a_failure(fleet: Fleet) -> None:
    without_optional_rungs(fleet)
    fleet.worker("w1").slots_max = 1
    fleet.worker("w1").in_flight = 1
    assert fleet.capacity is not None
    fleet.capacity.workers[0].slots_free = 0
    fleet.capacity.workers[0].slots_max = 1
    fleet.capacity.workers[0].slots_in_use = 1
    assert fleet.jobs is not None
    fleet.jobs.jobs.append(job("sleeper", phase=JobPhase.UNASSIGNED, assigned_worker=None))
    report = analyze(fleet.evidence(), profile=StubProfile(extra_rules=[_exploding]), job="sleeper")
    assert report.targets[0].layers[Layer.CAPACITY.index].status is LayerStatus.FAIL
    assert report.verdict is Verdict.BLOCKED
    assert report.first_failed_layer is Layer.CAPACITY


def test_product_rules_run_after_generic_ones_and_only_for_their_product(fleet: Fleet) -> None:
    @rule(Layer.OUTCOME, products=["test"])
    def mine(ctx: RuleContext) -> RuleResult | None:
        return RuleResult.fail("PRODUCT_SAYS_NO", "the product knows better")

    @rule(Layer.OUTCOME, products=["other"])
    def theirs(ctx: RuleContext) -> RuleResult | None:
        return RuleResult.fail("OTHER_PRODUCT", "not for this bundle")

    report = analyze(
        fleet.evidence(), profile=StubProfile(extra_rules=[mine, theirs]), job="ingest"
    )
    outcome = report.targets[0].layers[Layer.OUTCOME.index]
    assert outcome.status is LayerStatus.FAIL
    assert [f.code for f in outcome.findings] == ["PRODUCT_SAYS_NO", "CANARY_PASSED"]


def test_profile_timeline_reaches_the_rules(fleet: Fleet) -> None:
    fleet.worker("w1").connection = ConnectionState.OFFLINE
    event = TimelineEvent(
        kind="evicted",
        member="hosts/h01/logs/1.log",
        line=7,
        text="Worker w1 evicted (stale for >30s)",
        at=T0 - timedelta(seconds=3),
        worker="w1",
    )
    report = analyze(fleet.evidence(), profile=StubProfile(events=[event]), job="ingest")
    heartbeat = report.targets[0].layers[Layer.HEARTBEAT.index]
    labels = [c.label() for f in heartbeat.findings for c in f.evidence]
    assert "hosts/h01/logs/1.log:7" in labels


def test_broken_profile_degrades_to_generic_rules_with_a_note(fleet: Fleet) -> None:
    class Broken(StubProfile):
        def parse_logs(self, evidence):  # type: ignore[no-untyped-def]
            raise RuntimeError("parser bug")

        def rules(self):  # type: ignore[no-untyped-def]
            raise RuntimeError("rules bug")

    report = analyze(fleet.evidence(), profile=Broken())
    assert {f.code for f in report.fleet_findings} >= {"LOG_PARSER_ERROR", "PROFILE_RULES_ERROR"}
    assert report.targets[0].layers[0].status is LayerStatus.PASS


def test_report_first_failed_layer_is_the_lowest_across_targets(fleet: Fleet) -> None:
    fleet.worker("w2").connection = ConnectionState.OFFLINE
    assert fleet.jobs is not None
    fleet.jobs.jobs.append(
        job(
            "stuck",
            phase=JobPhase.UNASSIGNED,
            assigned_worker=None,
            requirements=JobRequirements(labels={"zone": "mars"}),
        )
    )
    fleet.jobs.jobs.append(
        job(
            "pinned",
            phase=JobPhase.UNASSIGNED,
            assigned_worker=None,
            requirements=JobRequirements(required_worker="w2"),
        )
    )
    report = analyze(fleet.evidence())
    assert report.verdict is Verdict.BLOCKED
    assert report.first_failed_layer is Layer.HEARTBEAT
    assert report.targets[0].first_failed_layer is Layer.HEARTBEAT  # blocked first, lowest first
    assert [t.verdict for t in report.targets][:2] == [Verdict.BLOCKED, Verdict.BLOCKED]


def test_unknown_worker_or_job_is_a_usage_error_naming_known_ones(fleet: Fleet) -> None:
    with pytest.raises(UsageError) as caught:
        analyze(fleet.evidence(), worker="nope")
    assert caught.value.hint == "known workers: w1, w2"
    with pytest.raises(UsageError) as caught:
        analyze(fleet.evidence(), job="nope")
    assert caught.value.hint == "known jobs: ingest"


def test_findings_carry_recovery_and_acceptance(fleet: Fleet) -> None:
    fleet.worker("w1").connection = ConnectionState.OFFLINE
    report = analyze(fleet.evidence(), job="ingest")
    finding = report.targets[0].layers[Layer.HEARTBEAT.index].findings[0]
    assert finding.code == "WORKER_OFFLINE"
    assert finding.recovery is not None
    assert finding.recovery.reference is not None
    assert finding.acceptance == ["recent heartbeat and system information"]


@pytest.mark.parametrize(
    ("verdicts", "expected"),
    [
        ([], Verdict.INCONCLUSIVE),
        ([Verdict.HEALTHY, Verdict.DEGRADED], Verdict.DEGRADED),
        ([Verdict.DEGRADED, Verdict.INCONCLUSIVE], Verdict.INCONCLUSIVE),
        ([Verdict.INCONCLUSIVE, Verdict.BLOCKED, Verdict.HEALTHY], Verdict.BLOCKED),
    ],
)
def test_overall_verdict_is_the_worst(verdicts: list[Verdict], expected: Verdict) -> None:
    assert overall(verdicts) is expected


def test_invalid_evidence_document_caps_the_verdict_at_inconclusive(fleet: Fleet) -> None:
    source = fleet.source()
    source.add("evidence/outcome.json", b'{"canaries": "not a list"}')
    from bundler.analyze.api import EvidenceSet

    report = analyze(EvidenceSet(source), job="ingest")
    assert report.verdict is Verdict.INCONCLUSIVE
    assert any(f.code == "EVIDENCE_INVALID" for f in report.fleet_findings)


def test_missing_core_documents_are_reported(fleet: Fleet) -> None:
    fleet.jobs = None
    report = analyze(fleet.evidence())
    assert any(f.code == "EVIDENCE_MISSING" for f in report.fleet_findings)
    assert report.verdict is Verdict.INCONCLUSIVE


@pytest.mark.parametrize("document", ["jobs", "workers"])
def test_an_incomplete_job_or_worker_list_caps_the_verdict_at_inconclusive(
    fleet: Fleet, document: str
) -> None:
    """A job list whose request timed out holds no job: every per-job rung would read n/a."""
    assert analyze(fleet.evidence()).verdict is Verdict.HEALTHY
    listing = getattr(fleet, document)
    listing.complete = False
    listing.gaps = [f"http.{document}"]
    if document == "jobs":
        listing.jobs = []
    report = analyze(fleet.evidence())
    assert report.verdict is Verdict.INCONCLUSIVE
    found = [f for f in report.fleet_findings if f.code == "TARGETS_INCOMPLETE"]
    assert [f.details["member"] for f in found] == [f"evidence/{document}.json"]


def test_server_failure_blocks_every_target(fleet: Fleet) -> None:
    assert fleet.server is not None
    fleet.server.reachable = False
    report = analyze(fleet.evidence())
    assert report.first_failed_layer is Layer.SERVER
    assert {t.first_failed_layer for t in report.targets} == {Layer.SERVER}


def test_empty_bundle_still_reports_the_control_plane() -> None:
    from bundler.analyze.api import EvidenceSet
    from bundler.source import MemorySource

    report = analyze(EvidenceSet(MemorySource()))
    assert report.verdict is Verdict.INCONCLUSIVE
    assert [(t.worker, t.job) for t in report.targets] == [(None, None)]


def test_many_targets_keep_the_most_severe(fleet: Fleet) -> None:
    from bundler.analyze import engine
    from schemas.evidence import WorkerAuthorization

    assert fleet.workers is not None
    assert fleet.authorization is not None
    for n in range(engine.MAX_TARGETS + 10):  # paused workers: degraded, each its own target
        fleet.workers.workers.append(worker_status(f"p{n:03d}", admin="paused"))
    fleet.workers.workers.append(worker_status("zz-denied"))  # listed last
    fleet.authorization.workers.append(WorkerAuthorization(worker="zz-denied", decision="deny"))
    report = analyze(fleet.evidence())
    assert len(report.targets) == engine.MAX_TARGETS
    assert report.targets[0].worker == "zz-denied"
    assert report.targets[0].first_failed_layer is Layer.AUTHORIZATION
    assert any(f.code == "TARGETS_TRUNCATED" for f in report.fleet_findings)


def test_raw_records_that_failed_their_model_are_noted(fleet: Fleet) -> None:
    from datetime import UTC, datetime

    from schemas import EncryptionInfo, Manifest, MemberEntry, ToolInfo

    fleet.manifest = Manifest(
        tool=ToolInfo(version="0.1.0"),
        created_at=datetime(2026, 11, 29, tzinfo=UTC),
        bundle_id="b",
        encryption=EncryptionInfo(mode="password"),
        members=[MemberEntry(path="raw/http/workers.json", sha256="0" * 64, size=2, valid=False)],
    )
    report = analyze(fleet.evidence())
    [note] = [f for f in report.fleet_findings if f.code == "RAW_RECORDS_INVALID"]
    assert note.evidence[0].member == "raw/http/workers.json"
    assert report.verdict is Verdict.HEALTHY  # a note, not a warning
