"""BundleRedactor is bundler's MemberTransform, structurally, and refuses like MemberDropped."""

from __future__ import annotations

import inspect

import pytest

from bundler.archive.contracts import MemberDropped, MemberTransform
from redactors import BundleRedactor, MemberRefused
from schemas import RedactionReport, RedactionSummary


def test_every_protocol_method_exists_with_the_same_parameters() -> None:
    for name, member in inspect.getmembers(MemberTransform, inspect.isfunction):
        if name.startswith("_"):
            continue
        ours = getattr(BundleRedactor, name)
        expected = list(inspect.signature(member).parameters)
        assert list(inspect.signature(ours).parameters)[: len(expected)] == expected, name


def test_a_refusal_looks_like_member_dropped_and_happens_before_any_byte() -> None:
    redactor = BundleRedactor()
    stream = redactor.transform(
        "db.sqlite", [b"SQLite format 3\0" + b"\0" * 100], media_type="application/octet-stream"
    )
    with pytest.raises(MemberRefused) as info:
        next(stream)
    assert info.value.reason == "binary"
    assert info.value.detail == "SQLite database"
    assert {"reason", "detail"} <= set(vars(MemberDropped("x", "y")))


def test_report_and_summary_are_the_schema_models() -> None:
    redactor = BundleRedactor()
    out = b"".join(redactor.transform("a.log", [b"password=hunter2-c\n"], media_type="text/plain"))
    out = b"".join(redactor.finalize("a.log", [out], media_type="text/plain"))
    assert isinstance(redactor.report(), RedactionReport)
    summary = redactor.summary()
    assert isinstance(summary, RedactionSummary)
    assert summary.total == 1
    assert summary.report_member == "redaction-report.json"
    assert redactor.report().files[0].sha256 is not None


def test_redact_text_for_error_messages() -> None:
    redactor = BundleRedactor()
    message = redactor.redact_text(
        "connect failed: postgres://app:Err-Pw-1@db/x (token=ghp_" + "x1" * 18 + ")"
    )
    assert "Err-Pw-1" not in message
    assert "ghp_" not in message


def test_the_summary_counted_from_records_is_the_built_reports() -> None:
    """summary() no longer builds the report (a fleet's is ~4 MB of models): same figures."""
    redactor = BundleRedactor()
    members = {
        "a.log": b"password=hunter2-c\ntoken=ghp_" + b"x1" * 18 + b"\n",
        "b.log": b"nothing to see here\n",
        "c.json": b'{"password": "Zq8-long-value-1", "user": "ann"}',
        "hosts/ghp_" + "ab" * 18 + "/x.txt": b"plain\n",  # a secret in the name
    }
    for name, content in members.items():
        media = "application/json" if name.endswith(".json") else "text/plain"
        out = b"".join(redactor.transform(name, [content], media_type=media))
        b"".join(redactor.finalize(name, [out], media_type=media))
    redactor.skip("dev/null", "special_file")
    counted = redactor.summary()
    report = redactor.report()
    assert (counted.total, counted.by_kind, counted.files_skipped) == (
        report.total,
        report.by_kind,
        len(report.skipped),
    )
    assert counted.files_redacted == sum(1 for f in report.files if f.by_kind or f.name_redacted)
    assert (counted.ruleset_id, counted.ruleset_sha256, counted.obfuscate_network) == (
        report.ruleset_id,
        report.ruleset_sha256,
        report.obfuscate_network,
    )
    assert counted.total >= 3
    assert counted.files_skipped == 1
    assert counted.files_redacted >= 3
