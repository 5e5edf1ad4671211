"""redaction.md §5: no planted secret survives at any decoding layer; decoys stay.

Cases 62 (chunk boundaries), 63 (a 5 MB single-line JSON) and 69 (symlinks)
need a stream or a directory and live in test_stream.py and test_tree.py.
"""

from __future__ import annotations

import pytest

from redactors import Policy
from tests.support.redaction import leaks, run

from .corpus import CASES, Case

ELSEWHERE = {62: "test_stream.py", 63: "test_stream.py", 69: "test_tree.py"}


def test_the_corpus_has_all_71_cases() -> None:
    numbers = {case.number for case in CASES} | set(ELSEWHERE)
    assert numbers == set(range(1, 72))


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_case(case: Case) -> None:
    outputs, redactor, refused = run(case.files, Policy(**case.policy))
    assert leaks(outputs, case.secrets) == []
    joined = b"\n".join(outputs.values())
    missing = [keep for keep in case.keep if keep.encode() not in joined]
    assert missing == []
    assert sorted(refused) == sorted(case.refused)
    report = redactor.report()
    assert {s.member for s in report.skipped} >= set(case.refused)
    assert not any(
        secret in report.model_dump_json() for secret in case.secrets if len(secret) >= 6
    )


@pytest.mark.parametrize("case", [c for c in CASES if c.secrets], ids=lambda c: c.id)
def test_case_is_idempotent(case: Case) -> None:
    """Redacting redacted output changes nothing (IP pseudonyms aside: see test_network.py)."""
    first, _, _ = run(case.files, Policy(**case.policy))
    again, _, _ = run(first, Policy(keywords=case.policy.get("keywords", ())))
    changed = [name for name, data in again.items() if data != first.get(name, data)]
    assert changed == []
