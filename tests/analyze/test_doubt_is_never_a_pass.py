"""Doubt is never a pass: every rule of both products, with its inputs removed one at a time.

Starting from the committed healthy samples (real evidence from a real Flux and
from the LyftData simulator), each rule is run on each target with full
evidence, recording which documents it reads; then each of those documents is
removed in turn and the rule run again. It may then say nothing, or answer
unknown, fail or warn, but never pass; it answers "not applicable" only when it
did so with the full evidence too (a product without that step). An unknown
that the removal caused names the removed member and how to collect it. A
document the rule declares it needs (``@rule(needs=...)``) always gives the
engine's unknown, whatever the rule would have made of the rest.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from bundler.analyze.api import EvidenceSet, Rule, RuleContext, Target, Timeline
from bundler.analyze.codes import MISSING_DOCUMENTS
from bundler.analyze.ladder import evaluate
from bundler.analyze.rules import GENERIC_RULES
from bundler.analyze.targets import select_targets
from bundler.products import get_profile
from bundler.source import MemorySource
from schemas import LayerStatus, Manifest
from schemas.evidence import EvidenceDoc
from tests.support.sample_bundles import load_sample

SAMPLES = ("flux-healthy", "lyftdata-healthy")

AUXILIARY = {
    ("bundler.products.flux.rules.server.flux_server_up", "evidence/product.json"):
        "read only for the SQLite-with-a-fleet note; the server's state is in server.json",
    ("bundler.products.flux.rules.server.flux_server_up", "evidence/workers.json"):
        "read only for the SQLite-with-a-fleet note (how many workers share it)",
    ("bundler.analyze.rules.authorization.runtime_authorization", "evidence/workers.json"):
        "read only to tell a built-in worker (no lease) when it has no authorization record",
    ("bundler.analyze.rules.placement.job_placement", "evidence/placement.json"):
        "without the product's report, placement is derived from the job's requirements and "
        "the worker list, as for products that have no report",
}  # fmt: skip
"""(rule, member) pairs where the member only adds detail: the rule may still pass without it."""


@dataclass
class Case:
    source: MemorySource
    manifest: Manifest
    profile_name: str

    def context(self, target: Target, without: str | None = None) -> RuleContext:
        source = self.source
        if without is not None:
            source = MemorySource({n: source.read_bytes(n) for n in source.names() if n != without})
        evidence = EvidenceSet(source, self.manifest)
        profile = get_profile(self.profile_name)
        return RuleContext(
            evidence=evidence,
            target=target,
            timeline=Timeline(list(profile.parse_logs(evidence))),
            profile=self.profile_name,
            collection_hints=getattr(profile, "collection_hints", {}),
        )


def _cases() -> list[tuple[str, Rule]]:
    found = []
    for sample in SAMPLES:
        product = sample.split("-")[0]
        rules = [*GENERIC_RULES, *get_profile(product).rules()]
        found += [(sample, r) for r in rules if r.applies_to(product)]
    return found


@pytest.fixture(scope="module")
def cases() -> dict[str, Case]:
    loaded = {}
    for sample in SAMPLES:
        source, manifest = load_sample(sample)
        loaded[sample] = Case(source, manifest, sample.split("-")[0])
    return loaded


def _read_by(rule: Rule, ctx: RuleContext) -> tuple[LayerStatus | None, list[type[EvidenceDoc]]]:
    read = ctx.evidence.tracking()
    answer = rule(ctx)
    return (answer.status if answer else None), list(read)


@pytest.mark.parametrize(("sample", "rule"), _cases(), ids=lambda v: getattr(v, "name", v))
def test_a_rule_without_one_of_its_inputs_never_passes(
    sample: str, rule: Rule, cases: dict[str, Case]
) -> None:
    case = cases[sample]
    targets = select_targets(EvidenceSet(case.source, case.manifest))
    for target in targets:
        full, read = _read_by(rule, case.context(target))
        for cls in read:
            if not case.source.has(cls.member_path) or (rule.name, cls.member_path) in AUXILIARY:
                continue
            ctx = case.context(target, without=cls.member_path)
            answer = rule(ctx)
            status = answer.status if answer else None
            where = (rule.name, target.worker, target.job.name if target.job else None, cls)
            if cls in rule.needs:
                assert answer is not None, where
                assert [f.code for f in answer.findings] == [MISSING_DOCUMENTS[cls][0]], where
            assert status is not LayerStatus.PASS, where
            if status is LayerStatus.NOT_APPLICABLE:
                assert full is LayerStatus.NOT_APPLICABLE, where
            rung = evaluate(rule.layer, [rule], case.context(target, without=cls.member_path))
            assert rung.status is not LayerStatus.PASS, where
            if rung.status is LayerStatus.UNKNOWN and full is not LayerStatus.UNKNOWN:
                named = [f for f in rung.findings if cls.member_path in f.missing]
                assert named, (where, [(f.code, f.missing) for f in rung.findings])
                assert all(f.to_decide for f in named), where
