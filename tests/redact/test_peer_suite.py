"""Redaction judged by material nobody here wrote: the peer suite in ``../shared``.

``../shared/peer-suites/redaction/corpus`` plants 305 secrets of 251 kinds and
205 keep-cases taken from the test cases of gitleaks, trufflehog, troubleshoot
and detect-secrets in a synthetic bundle; its own ``score.py`` scores a redacted
copy. The suite is read where it is (never copied into the project) and its
values appear nowhere in our rules: what is tested is whether the rules
generalize.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.shared import shared_path

SUITE = shared_path("peer-suites", "redaction", marker="score.py")
pytestmark = pytest.mark.skipif(
    SUITE is None, reason="../shared/peer-suites is not beside the checkout"
)


@pytest.fixture(scope="module")
def redacted(tmp_path_factory: pytest.TempPathFactory) -> Path:
    assert SUITE is not None
    out = tmp_path_factory.mktemp("peer") / "out"
    bundler = Path(sys.executable).with_name("bundler")
    done = subprocess.run(
        [str(bundler), "redact", str(SUITE / "corpus"), "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return out


def test_the_peer_suite_scores_full_recall_and_keeps_its_evidence(
    redacted: Path, tmp_path: Path
) -> None:
    assert SUITE is not None
    scores = tmp_path / "score.json"
    done = subprocess.run(
        [sys.executable, "score.py", str(redacted), "--json", str(scores)],
        cwd=SUITE,
        capture_output=True,
        text=True,
        timeout=300,
    )
    result = json.loads(scores.read_text())
    summary = {k: result[k] for k in ("recall", "keep_rate", "leaked")}
    assert result["recall"] == 1.0, (summary, result["leaks"])
    assert result["keep_rate"] >= 0.95, (summary, result["over_redactions"])
    assert done.returncode == 0, done.stdout[-2000:]


def test_every_line_of_the_peer_corpus_is_kept(redacted: Path) -> None:
    assert SUITE is not None
    corpus = SUITE / "corpus"
    changed = {}
    for source in sorted(p for p in corpus.rglob("*") if p.is_file()):
        relative = source.relative_to(corpus)
        copy = redacted / relative
        assert copy.is_file(), f"{relative} is missing from the redacted copy"
        before, after = source.read_bytes().count(b"\n"), copy.read_bytes().count(b"\n")
        if before != after:
            changed[str(relative)] = (before, after)
    assert changed == {}


def test_the_redacted_peer_corpus_reviews_clean(redacted: Path) -> None:
    """What the redactor keeps on purpose (placeholders, form tokens) the reviewer accepts."""
    bundler = Path(sys.executable).with_name("bundler")
    done = subprocess.run(
        [str(bundler), "review", str(redacted)], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
