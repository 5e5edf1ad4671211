"""Pairing targets and classifying layer changes, on synthetic ladders."""

from __future__ import annotations

from bundler.diff.targets import pair_targets, target_change
from schemas import Layer, LayerResult, LayerStatus, TargetReport, Verdict

P, F, U, S, NA = (LayerStatus.PASS, LayerStatus.FAIL, LayerStatus.UNKNOWN, LayerStatus.SKIPPED,
                  LayerStatus.NOT_APPLICABLE)  # fmt: skip


def ladder(worker: str | None, job: str | None, *statuses: LayerStatus) -> TargetReport:
    layers = [
        LayerResult(name=layer, status=s)
        for layer, s in zip(Layer.ordered(), statuses, strict=False)
    ]
    failed = next((r.name for r in layers if r.status is F), None)
    verdict = Verdict.BLOCKED if failed else Verdict.HEALTHY
    return TargetReport(
        worker=worker, job=job, verdict=verdict, first_failed_layer=failed, layers=layers
    )


def changes(before: TargetReport | None, after: TargetReport | None) -> dict[str, tuple[str, bool]]:
    pair = (before, after, "worker and job")
    return {c.layer.value: (c.change, c.regression) for c in target_change(pair).layers}


def test_each_kind_of_layer_change() -> None:
    got = changes(ladder("w", None, P, F, S, P, U), ladder("w", None, P, P, F, U, P))
    assert got["server"] == ("unchanged", False)
    assert got["heartbeat"] == ("fixed", False)
    assert got["authorization"] == ("newly_failing", False)  # was not reached: not a regression
    assert got["placement"] == ("became_unknown", False)
    assert got["deployment"] == ("changed", False)


def test_a_layer_that_passed_and_fails_now_is_a_regression() -> None:
    got = changes(ladder("w", None, P, P, NA), ladder("w", None, P, F, NA))
    assert got["heartbeat"] == ("newly_failing", True)
    assert changes(ladder("w", None, P, NA), ladder("w", None, P, F))["heartbeat"][1] is True


def test_a_target_gone_from_after_becomes_unknown() -> None:
    assert changes(ladder("w", None, P), None)["server"] == ("became_unknown", False)


def test_targets_pair_by_worker_and_job_then_worker_then_job() -> None:
    before = [ladder("w1", "j1", P), ladder("w2", "j2", F), ladder(None, "j3", F)]
    after = [
        ladder("w1", "j1", P),
        ladder("w2", None, P),
        ladder("w9", "j3", P),
        ladder("w4", None, P),
    ]
    how = {
        (b.worker if b else None, a.worker if a else None): m
        for b, a, m in pair_targets(before, after)
    }
    assert how[("w1", "w1")] == "worker and job"
    assert how[("w2", "w2")] == "worker"
    assert how[(None, "w9")] == "job"
    assert how[(None, "w4")] == "after only"


def test_a_target_only_one_side_chose_is_walked_on_the_other() -> None:
    walked = ladder("w5", None, P)
    pairs = pair_targets(
        [], [ladder("w5", None, F)], walk_before=lambda w, j: walked if w == "w5" else None
    )
    assert pairs == [(walked, pairs[0][1], "walked on BEFORE by name")]
    assert target_change(pairs[0]).layers[0].regression is True


def test_the_verdict_puts_regression_before_failure_before_doubt() -> None:
    from bundler.diff.compare import verdict
    from schemas.diff import AcceptanceResult

    def check(status: str) -> AcceptanceResult:
        return AcceptanceResult(check="c", status=status)  # type: ignore[arg-type]

    regressed = target_change((ladder("w", None, P, P), ladder("w", None, P, F), "worker"))
    fixed = target_change((ladder("w", None, P, F), ladder("w", None, P, P), "worker"))
    assert verdict([regressed], [check("fail")], Verdict.BLOCKED) == "regressed"
    assert verdict([fixed], [check("fail")], Verdict.HEALTHY) == "still_failing"
    assert verdict([fixed], [check("unknown"), check("pass")], Verdict.HEALTHY) == "inconclusive"
    assert verdict([fixed], [check("pass")], Verdict.INCONCLUSIVE) == "inconclusive"
    assert (
        verdict([fixed], [check("pass"), check("not_applicable")], Verdict.HEALTHY) == "recovered"
    )
