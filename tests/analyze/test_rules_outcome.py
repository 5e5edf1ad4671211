"""Rung 7 rules: canary phase, receipts and their strength, and the job-phase fallback."""

from __future__ import annotations

from datetime import timedelta

from bundler.analyze.rules import outcome as rules
from schemas import LayerStatus
from schemas.evidence import CanaryRun, JobPhase, OutcomeEvidence, Receipt
from tests.support.evidence import T0, Fleet

from .conftest import codes, judge, status


def _canary(fleet: Fleet) -> CanaryRun:
    assert fleet.outcome is not None
    return fleet.outcome.canaries[0]


def _receipt(fleet: Fleet) -> Receipt:
    assert fleet.outcome is not None
    return fleet.outcome.receipts[0]


def test_canary_with_durable_receipt_passes(fleet: Fleet) -> None:
    assert codes(judge(rules.canary_and_receipt, fleet, job="ingest")) == ["CANARY_PASSED"]


def test_a_pass_with_its_receipt_cites_the_receipt(fleet: Fleet) -> None:
    """ "Succeeded with its receipt" is read from the receipt: the pass cites it beside the run,
    the strongest of them when several confirm it."""
    weak = _receipt(fleet).model_copy(update={"sink": "buffer", "strength": "accepted"})
    assert fleet.outcome is not None
    fleet.outcome.receipts.insert(0, weak)
    result = judge(rules.canary_and_receipt, fleet, job="ingest")
    assert result is not None
    (finding,) = result.findings
    labels = [c.label() for c in finding.evidence]
    assert "evidence/outcome.json#/canaries/0/phase" in labels
    assert "evidence/outcome.json#/receipts/1/sink" in labels
    assert "evidence/outcome.json#/receipts/0/sink" not in labels
    assert finding.message.endswith(f"with its receipt from {_receipt_sink(fleet, 1)}.")


def test_a_pass_without_a_required_receipt_cites_none(fleet: Fleet) -> None:
    _canary(fleet).receipt_required = False
    result = judge(rules.canary_and_receipt, fleet, job="ingest")
    assert result is not None
    (finding,) = result.findings
    assert not [c for c in finding.evidence if "/receipts/" in c.label()]
    assert finding.message.endswith("succeeded.")


def _receipt_sink(fleet: Fleet, index: int) -> str:
    assert fleet.outcome is not None
    return fleet.outcome.receipts[index].sink


def test_failed_and_timed_out_canaries_fail(fleet: Fleet) -> None:
    _canary(fleet).phase = "failed"
    assert codes(judge(rules.canary_and_receipt, fleet, job="ingest")) == ["CANARY_FAILED"]
    _canary(fleet).phase = "timed_out"
    assert codes(judge(rules.canary_and_receipt, fleet, job="ingest")) == ["CANARY_TIMED_OUT"]


def test_running_canary_is_unknown(fleet: Fleet) -> None:
    _canary(fleet).phase = "running"
    assert status(judge(rules.canary_and_receipt, fleet, job="ingest")) is LayerStatus.UNKNOWN


def test_ran_without_required_receipt_fails(fleet: Fleet) -> None:
    assert fleet.outcome is not None
    fleet.outcome.receipts = []
    result = judge(rules.canary_and_receipt, fleet, job="ingest")
    assert codes(result) == ["RECEIPT_MISSING"]
    assert result is not None
    assert result.findings[0].evidence[0].label() == (
        "evidence/outcome.json#/canaries/0/receipt_required"
    )


def test_no_receipt_in_incomplete_evidence_is_unknown_not_missing(fleet: Fleet) -> None:
    """The receipts collector failed: the receipt may be in what it did not bring back."""
    assert fleet.outcome is not None
    fleet.outcome.receipts = []
    fleet.outcome.complete = False
    fleet.outcome.gaps = ["http.canary-receipts.000"]
    result = judge(rules.canary_and_receipt, fleet, job="ingest")
    assert codes(result) == ["RECEIPTS_UNREAD"]
    assert status(result) is LayerStatus.UNKNOWN
    assert result is not None
    finding = result.findings[0]
    assert "(gaps: http.canary-receipts.000)" in finding.message
    assert finding.evidence[0].label() == "evidence/outcome.json#/gaps"
    fleet.outcome.complete, fleet.outcome.gaps = True, []  # all collected, none came: never came
    assert codes(judge(rules.canary_and_receipt, fleet, job="ingest")) == ["RECEIPT_MISSING"]


def test_a_receipt_found_in_incomplete_evidence_still_proves_the_run(fleet: Fleet) -> None:
    assert fleet.outcome is not None
    fleet.outcome.complete = False
    fleet.outcome.gaps = ["http.canary-receipts.001"]
    assert codes(judge(rules.canary_and_receipt, fleet, job="ingest")) == ["CANARY_PASSED"]


def test_unacked_receipt_counts_as_missing(fleet: Fleet) -> None:
    _receipt(fleet).acked = False
    assert codes(judge(rules.canary_and_receipt, fleet, job="ingest")) == ["RECEIPT_MISSING"]


def test_accepted_only_receipt_warns(fleet: Fleet) -> None:
    _receipt(fleet).strength = "accepted"
    result = judge(rules.canary_and_receipt, fleet, job="ingest")
    assert status(result) is LayerStatus.WARN
    assert codes(result) == ["RECEIPT_ACCEPTED_ONLY"]


def test_nonce_mismatch_fails(fleet: Fleet) -> None:
    _receipt(fleet).nonce_matched = False
    assert "RECEIPT_NONCE_MISMATCH" in codes(judge(rules.canary_and_receipt, fleet, job="ingest"))


def test_no_output_warns(fleet: Fleet) -> None:
    _canary(fleet).events_out = 0
    assert "CANARY_NO_OUTPUT" in codes(judge(rules.canary_and_receipt, fleet, job="ingest"))


def test_no_receipt_needed_passes_without_one(fleet: Fleet) -> None:
    assert fleet.outcome is not None
    fleet.outcome.receipts = []
    _canary(fleet).receipt_required = False
    assert status(judge(rules.canary_and_receipt, fleet, job="ingest")) is LayerStatus.PASS


def test_latest_canary_wins(fleet: Fleet) -> None:
    """Of two dated canaries the later one decides, whatever their order in the list."""
    latest = _canary(fleet)
    assert latest.finished_at is not None
    older = latest.model_copy(
        update={
            "canary_id": "c0",
            "phase": "failed",
            "started_at": latest.finished_at - timedelta(hours=2),
            "finished_at": latest.finished_at - timedelta(hours=1),
        }
    )
    assert fleet.outcome is not None
    fleet.outcome.canaries.insert(0, older)
    assert status(judge(rules.canary_and_receipt, fleet, job="ingest")) is LayerStatus.PASS
    fleet.outcome.canaries.reverse()
    assert status(judge(rules.canary_and_receipt, fleet, job="ingest")) is LayerStatus.PASS


def test_a_canary_with_no_time_that_ended_otherwise_leaves_the_latest_unknown(
    fleet: Fleet,
) -> None:
    """A run with no time at all is not older than a dated one: the product never said when it
    ran. Failed beside a dated success, which ran last is unknown (it passed before)."""
    older = _canary(fleet).model_copy(
        update={"canary_id": "c0", "phase": "failed", "finished_at": None, "started_at": None}
    )
    assert fleet.outcome is not None
    fleet.outcome.canaries.insert(0, older)
    result = judge(rules.canary_and_receipt, fleet, job="ingest")
    assert status(result) is LayerStatus.UNKNOWN
    assert codes(result) == ["RUN_ORDER_UNDATED"]
    assert result is not None
    assert "c0 failed, with no time" in result.findings[0].message


def test_a_canary_with_no_time_that_ended_the_same_way_changes_nothing(fleet: Fleet) -> None:
    same = _canary(fleet).model_copy(
        update={"canary_id": "c0", "finished_at": None, "started_at": None}
    )
    assert fleet.outcome is not None
    fleet.outcome.canaries.insert(0, same)
    assert status(judge(rules.canary_and_receipt, fleet, job="ingest")) is LayerStatus.PASS


def test_undated_canaries_that_disagree_are_not_ranked_by_list_order(fleet: Fleet) -> None:
    """No run is dated: the first (or last) in the list is no latest."""
    assert fleet.outcome is not None
    run = _canary(fleet).model_copy(update={"finished_at": None, "started_at": None})
    failed = run.model_copy(update={"canary_id": "c0", "phase": "failed"})
    for canaries in ([run, failed], [failed, run]):
        fleet.outcome.canaries = canaries
        result = judge(rules.canary_and_receipt, fleet, job="ingest")
        assert codes(result) == ["RUN_ORDER_UNDATED"]
        assert result is not None
        message = result.findings[0].message
        assert "dated one" not in message, message  # none is: which one is named, undated
        assert "with no time" in message.split(" but ")[0], message


def test_no_outcome_document_is_unknown_never_the_job_phase(fleet: Fleet) -> None:
    fleet.outcome = None
    fleet.job("ingest").phase = JobPhase.COMPLETED
    result = judge(rules.canary_and_receipt, fleet, job="ingest")
    assert codes(result) == ["OUTCOME_EVIDENCE_MISSING"]
    assert status(result) is LayerStatus.UNKNOWN


def test_job_phase_is_the_fallback_without_a_run_in_the_outcome_evidence(fleet: Fleet) -> None:
    fleet.outcome = OutcomeEvidence()
    assert codes(judge(rules.canary_and_receipt, fleet, job="ingest")) == ["NO_FINISHED_RUN"]
    fleet.job("ingest").phase = JobPhase.COMPLETED
    assert codes(judge(rules.canary_and_receipt, fleet, job="ingest")) == ["LAST_RUN_COMPLETED"]
    fleet.job("ingest").phase = JobPhase.FAILED
    fleet.job("ingest").error = "ValueError: bad input"
    result = judge(rules.canary_and_receipt, fleet, job="ingest")
    assert codes(result) == ["JOB_RUN_FAILED"]
    assert result is not None
    assert "bad input" in result.findings[0].message


def test_worker_only_target(fleet: Fleet) -> None:
    assert status(judge(rules.canary_and_receipt, fleet, worker="w2")) is (
        LayerStatus.NOT_APPLICABLE
    )
    assert status(judge(rules.canary_and_receipt, fleet, worker="w1")) is LayerStatus.PASS


def test_a_canary_dated_after_collection_is_unknown_beyond_the_tolerance(fleet: Fleet) -> None:
    """A success stamped after the bundle was read is two clocks disagreeing, not a proof."""
    run = _canary(fleet)
    run.started_at = T0 + timedelta(days=180)
    run.finished_at = T0 + timedelta(days=180, seconds=9)
    result = judge(rules.canary_and_receipt, fleet, job="ingest")
    assert status(result) is LayerStatus.UNKNOWN
    assert codes(result) == ["CANARY_AFTER_COLLECTION"]
    assert result is not None
    assert "after the bundle was collected" in result.findings[0].message
    assert result.findings[0].evidence[0].label() == "evidence/outcome.json#/canaries/0/finished_at"
    run.started_at, run.finished_at = T0 - timedelta(seconds=5), T0 + timedelta(seconds=3)
    assert codes(judge(rules.canary_and_receipt, fleet, job="ingest")) == ["CANARY_PASSED"]


def test_a_receipt_dated_after_collection_is_unknown(fleet: Fleet) -> None:
    _receipt(fleet).observed_at = T0 + timedelta(hours=2)
    result = judge(rules.canary_and_receipt, fleet, job="ingest")
    assert status(result) is LayerStatus.UNKNOWN
    assert codes(result) == ["RECEIPT_AFTER_COLLECTION"]


def test_a_failed_canary_dated_after_collection_still_fails(fleet: Fleet) -> None:
    """Doubt about the clock never hides a failure: the rung fails and says both."""
    run = _canary(fleet)
    run.phase = "failed"
    run.finished_at = T0 + timedelta(days=1)
    result = judge(rules.canary_and_receipt, fleet, job="ingest")
    assert status(result) is LayerStatus.FAIL
    assert codes(result) == ["CANARY_FAILED", "CANARY_AFTER_COLLECTION"]


def test_one_canary_listed_successful_and_failed_is_unknown_in_either_order(fleet: Fleet) -> None:
    """Not the first record, not the last: the contradiction itself, citing both."""
    assert fleet.outcome is not None
    good = _canary(fleet)
    bad = good.model_copy(update={"phase": "failed"})
    for runs in ([good, bad], [bad, good]):
        fleet.outcome.canaries = list(runs)
        result = judge(rules.canary_and_receipt, fleet, job="ingest")
        assert status(result) is LayerStatus.UNKNOWN
        assert codes(result) == ["CANARY_RECORDS_CONFLICT"]
        assert result is not None
        assert [c.pointer for c in result.findings[0].evidence] == [
            "/canaries/0/phase",
            "/canaries/1/phase",
        ]
    fleet.outcome.canaries = [good, good.model_copy()]  # the same run twice is one run
    assert codes(judge(rules.canary_and_receipt, fleet, job="ingest")) == ["CANARY_PASSED"]


def test_canaries_that_ended_at_the_same_instant_otherwise_leave_the_latest_unknown(
    fleet: Fleet,
) -> None:
    """Two canaries of one job ended at one instant, one successful and one failed: neither is
    the later, so the rung is unknown whichever the list names first (not a pass or a failure
    by list order)."""
    assert fleet.outcome is not None
    run = _canary(fleet)
    failed = run.model_copy(update={"canary_id": "c2", "phase": "failed", "errors": 3})
    for canaries in ([run, failed], [failed, run]):
        fleet.outcome.canaries = canaries
        result = judge(rules.canary_and_receipt, fleet, job="ingest")
        assert status(result) is LayerStatus.UNKNOWN
        assert codes(result) == ["RUN_ORDER_TIED"]
        assert result is not None
        message = result.findings[0].message
        assert "c1 and c2 ended at the same instant" in message
        assert "pass by c1 and fail by c2" in message


def test_canaries_tied_at_one_instant_that_are_judged_alike_stand(fleet: Fleet) -> None:
    """Tied runs judged alike (both successful, both with their durable receipt) pass."""
    assert fleet.outcome is not None
    run = _canary(fleet)
    twin = run.model_copy(update={"canary_id": "c2"})
    fleet.outcome.receipts.append(_receipt(fleet).model_copy(update={"canary_id": "c2"}))
    for canaries in ([run, twin], [twin, run]):
        fleet.outcome.canaries = canaries
        assert codes(judge(rules.canary_and_receipt, fleet, job="ingest")) == ["CANARY_PASSED"]


def test_tied_canaries_judged_otherwise_by_their_receipts_are_unknown(fleet: Fleet) -> None:
    """Both successful at one instant, but only one has its required receipt: the rung reads
    pass by one and fail by the other, so it is unknown, not decided by list order."""
    assert fleet.outcome is not None
    run = _canary(fleet)
    twin = run.model_copy(update={"canary_id": "c2"})
    for canaries in ([run, twin], [twin, run]):
        fleet.outcome.canaries = canaries
        result = judge(rules.canary_and_receipt, fleet, job="ingest")
        assert codes(result) == ["RUN_ORDER_TIED"]
        assert result is not None
        assert "pass by c1 and fail by c2" in result.findings[0].message
