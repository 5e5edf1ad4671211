"""Zips nobody here wrote: Go's and libarchive's malformed-zip test archives, zip-slip, evilarc.

``../shared/peer-suites/archives/cases.json`` lists each file with its origin
and what a reader must do (class ``R``: refuse). They are read from there,
never copied into the project, and no value of theirs is special-cased: the
readers get them exactly as a user would hand them over, with the password
the case names.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.support.requirements import need
from tests.support.shared import shared_path

from .readers import run_all

SUITE = shared_path("peer-suites", "archives", marker="cases.json")
CASES: list[dict[str, Any]] = json.loads((SUITE / "cases.json").read_text()) if SUITE else []


def test_the_peer_suite_is_beside_the_checkout() -> None:
    need(SUITE is not None, "../shared/peer-suites/archives is not beside the checkout")
    assert len(CASES) >= 50


@pytest.mark.parametrize("case", CASES, ids=[Path(c["file"]).name for c in CASES])
def test_a_third_party_zip_is_refused_by_every_reader(case: dict[str, Any], tmp_path: Path) -> None:
    assert SUITE is not None
    assert case["expect"] == "R"
    assert case.get("opener", "password") == "password"
    # Read in place: run_all also checks that nothing was written beside it.
    seen = run_all(SUITE / case["file"], tmp_path / "work", password=case["password"])
    for reader, outcome in seen.items():
        assert outcome.code != 0, (reader, outcome.text)
    assert seen["analyze"].integrity() != "verified"
    assert seen["review"].code == 2, seen["review"].text
    assert "clean" not in seen["review"].stderr
