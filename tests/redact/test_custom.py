"""Custom rule files and --keyword: strict validation, one-line errors, every matcher kind."""

from __future__ import annotations

from pathlib import Path

import pytest

from redactors import BundleRedactor, Policy, RulesError, load_rules
from tests.support.redaction import run

GOOD_YAML = """
version: 1
rules:
  - id: acme-license
    kind: license-key
    regex: 'ACME-(?P<secret>[A-Z0-9]{16})'
  - id: org-name
    literals: ['Acme Corp']
    ignore_case: true
  - id: acme-keys
    key_names: ['internal_ref']
  - id: only-logs
    regex: 'LOGONLY-[0-9]{6}'
    files: ['*.log']
allow:
  values: ['AKIAIOSFODNN7EXAMPLE']
drop: ['*.pcap']
keywords: ['falcon']
"""


def test_a_rule_file_with_every_kind_of_rule(tmp_path: Path) -> None:
    path = tmp_path / "rules.yaml"
    path.write_text(GOOD_YAML)
    custom = load_rules(path)
    files = {
        "a.log": "lic ACME-ABCDEF0123456789 by ACME CORP internal_ref=ref-9981 LOGONLY-123456"
        " project Falcon\n"
        "example key AKIAIOSFODNN7EXAMPLE\n",
        "b.txt": "LOGONLY-654321 stays here\n",
        "cap.pcap": "binaryish",
    }
    outputs, redactor, refused = run(files, Policy(custom=custom))
    out = outputs["a.log"]
    assert b"ABCDEF0123456789" not in out
    assert b"ACME-[REDACTED:license-key:" in out
    assert b"ACME CORP" not in out
    assert b"ref-9981" not in out
    assert b"LOGONLY-123456" not in out
    assert b"Falcon" not in out
    assert b"AKIAIOSFODNN7EXAMPLE" in out
    assert b"LOGONLY-654321" in outputs["b.txt"]
    assert refused == {"cap.pcap": "policy"}
    report = redactor.report()
    assert report.custom_rules_sha256 == custom.sha256
    assert report.keywords == 1
    assert any(rule.source == "custom" for rule in report.rules)


SCOPED_YAML = """
version: 1
rules:
  - id: acme-license
    regex: 'ACME-(?P<secret>[A-Z0-9]{16})'
    files: ['**/*.log']
  - id: host-only
    regex: 'HOSTONLY-[0-9]{6}'
    files: ['hosts/**/*.txt']
drop: ['**/*.pcap']
"""


def test_a_double_star_folder_in_a_glob_also_matches_no_folder(tmp_path: Path) -> None:
    """docs/redaction.md's example, `files: ['**/*.log']`, scopes a rule to every log: a
    top-level `app.log` (what `bundler redact app.log` makes) is one too."""
    path = tmp_path / "rules.yaml"
    path.write_text(SCOPED_YAML)
    files = {
        "app.log": "lic ACME-ABCDEF0123456789\n",
        "hosts/h01/logs/00.log": "lic ACME-0123456789ABCDEF\n",
        "notes.txt": "lic ACME-FEDCBA9876543210 HOSTONLY-111111\n",
        "hosts/x.txt": "HOSTONLY-222222\n",
        "hosts/h01/y.txt": "HOSTONLY-333333\n",
        "capture.pcap": "capture",
        "hosts/h01/capture.pcap": "capture",
    }
    outputs, _, refused = run(files, Policy(custom=load_rules(path)))
    assert b"ABCDEF0123456789" not in outputs["app.log"]
    assert b"0123456789ABCDEF" not in outputs["hosts/h01/logs/00.log"]
    assert b"ACME-FEDCBA9876543210 HOSTONLY-111111" in outputs["notes.txt"]
    assert b"HOSTONLY-222222" not in outputs["hosts/x.txt"]
    assert b"HOSTONLY-333333" not in outputs["hosts/h01/y.txt"]
    assert refused == {"capture.pcap": "policy", "hosts/h01/capture.pcap": "policy"}


def test_toml_rule_files(tmp_path: Path) -> None:
    path = tmp_path / "rules.toml"
    path.write_text('version = 1\n[[rules]]\nid = "tenant"\nliterals = ["tenant-4471"]\n')
    outputs, _, _ = run({"a.log": "for tenant-4471 only\n"}, Policy(custom=load_rules(path)))
    assert b"tenant-4471" not in outputs["a.log"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("rules:\n  - id: x\n    regex: '('\n", "rule 'x'"),
        ("rules:\n  - id: x\n    regex: 'a'\n    literals: ['abcd']\n", "exactly one of"),
        ("rules:\n  - id: x\n    literals: ['ab']\n", "at least 4 characters"),
        ("rules:\n  - id: Bad_Id\n    literals: ['abcd']\n", "rule 'Bad_Id'"),
        ("rules:\n  - id: x\n    regx: 'a'\n", "Extra inputs are not permitted"),
        ("version: 2\n", "version"),
        ("- just a list\n", "expected a mapping"),
        ("rules: [\n", "not valid"),
        ("rules:\n  - id: x\n    regex: 'a*'\n", "empty string"),
    ],
)
def test_bad_rule_files_fail_in_one_line(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "rules.yaml"
    path.write_text(text)
    with pytest.raises(RulesError) as info:
        load_rules(path)
    assert message in str(info.value)
    assert "\n" not in str(info.value)


def test_keywords_are_case_insensitive_substrings() -> None:
    redactor = BundleRedactor(Policy(keywords=("Falcon",)))
    out = redactor.redact_text("FALCON falconry xFalconx")
    assert "alcon" not in out.lower()
    assert out.count("[REDACTED:keyword:") == 3
    assert "ry x" in out
