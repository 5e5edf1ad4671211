"""Every JSON pointer a finding cites exists in the member it names, in every sample; a
passing canary cites its raw record too.

A rule builds its citation from the field it meant to read; a document written without
empty fields may lack it. Before: Flux's saturated worker cited
``capacity.json#/workers/1/slots_free`` (Flux reports slots in use, not free), five
LyftData samples ``/workers/0/slots_in_use``, a rejected token's ``server.json#/healthy``
(never answered), a missing capability ``…/capabilities/splunk-hec`` (a list, indexed by
number): a reader following the citation found nothing there.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from bundler.analyze.api import EvidenceSet
from bundler.analyze.engine import analyze
from bundler.analyze.rederive import rederive
from bundler.products import get_profile
from samples import catalog
from tests.support.sample_bundles import load_sample

ENTRIES = [e for e in catalog.load_catalog() if e.opening != "identity"]


def _citations(node: Any) -> Iterator[dict[str, Any]]:
    if isinstance(node, dict):
        if node.get("member") and node.get("pointer"):
            yield node
        for value in node.values():
            yield from _citations(value)
    elif isinstance(node, list):
        for value in node:
            yield from _citations(value)


def _exists(document: Any, pointer: str) -> bool:
    node = document
    for raw in pointer.split("/")[1:]:
        part = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        elif isinstance(node, dict) and part in node:
            node = node[part]
        else:
            return False
    return True


@pytest.mark.parametrize("entry", ENTRIES, ids=[e.file for e in ENTRIES])
def test_every_cited_pointer_exists(entry: catalog.SampleEntry) -> None:
    source, manifest = load_sample(entry.file.removesuffix(".zip"))
    profile = get_profile(entry.product)
    used = rederive(EvidenceSet(source, manifest), profile)
    report = analyze(used.evidence, profile=profile)
    cited = list(_citations(report.model_dump(mode="json")))
    assert cited, "no JSON citation at all: the check would prove nothing"
    missing = set()
    for citation in cited:
        document = json.loads(used.evidence.source.read_bytes(citation["member"]))
        if not _exists(document, citation["pointer"]):
            missing.add(f"{citation['member']}#{citation['pointer']}")
    assert not missing, sorted(missing)


def test_a_passing_canary_cites_the_raw_record_it_came_from() -> None:
    """A passing canary is checkable in the product's own words, as a failed one is: before,
    CANARY_PASSED cited only bundler's ``evidence/outcome.json`` and CANARY_FAILED also the
    raw ``GET /api/canaries`` entry it was normalized from."""
    source, manifest = load_sample("lyftdata-healthy")
    profile = get_profile("lyftdata")
    used = rederive(EvidenceSet(source, manifest), profile)
    report = analyze(used.evidence, profile=profile)
    passed = [
        finding
        for target in report.targets
        for layer in target.layers
        for finding in layer.findings
        if finding.code == "CANARY_PASSED"
    ]
    assert passed, "the healthy sample's canary no longer passes: the check would prove nothing"
    for finding in passed:
        raw = [c for c in finding.evidence if c.member.startswith("raw/")]
        records = []
        for citation in raw:
            assert citation.pointer is not None
            document = json.loads(used.evidence.source.read_bytes(citation.member))
            records.append(_at(document, citation.pointer))
        runs = [r for r in records if "phase" in r]
        receipts = [r for r in records if "sink" in r]
        assert runs, finding.evidence
        assert len(runs) + len(receipts) == len(records), records
        for record in runs:
            assert record["phase"] == "successful"
            assert record["job"] in finding.message
        # "with its receipt from X" is checkable too, in the product's receipt record
        assert receipts, finding.evidence
        for record in receipts:
            assert record["acked"] is True
            assert f"with its receipt from {record['sink']}." in finding.message


def _at(document: Any, pointer: str) -> Any:
    node = document
    for raw in pointer.split("/")[1:]:
        part = raw.replace("~1", "/").replace("~0", "~")
        node = node[int(part)] if isinstance(node, list) else node[part]
    return node
