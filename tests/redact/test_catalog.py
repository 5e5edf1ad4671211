"""Every rule: its must-redact examples are redacted, its decoys are left alone."""

from __future__ import annotations

import pytest

from redactors import BUILTIN_RULES, BundleRedactor, Engine, View, all_kinds, ruleset_sha256
from redactors.review import review_source
from tests.support.redaction import run

ENGINE = Engine(BUILTIN_RULES)
EXAMPLES = [(r.id, text, secret) for r in BUILTIN_RULES for text, secret in r.examples]
DECOYS = [(r.id, text) for r in BUILTIN_RULES for text in r.decoys]


@pytest.mark.parametrize(
    ("rule", "text", "secret"), EXAMPLES, ids=[f"{e[0]}-{i}" for i, e in enumerate(EXAMPLES)]
)
def test_rule_redacts_its_examples(rule: str, text: str, secret: str) -> None:
    data = text.encode()
    hits = ENGINE.scan(View(data))
    covered = any(
        h.start <= data.find(secret.encode()) and h.end >= data.find(secret.encode()) + len(secret)
        for h in hits
    )
    assert covered, [(h.rule, data[h.start : h.end]) for h in hits]
    outputs, _, _ = run({"x.txt": text})
    assert secret.encode() not in outputs["x.txt"]


@pytest.mark.parametrize(
    ("rule", "text"), DECOYS, ids=[f"{d[0]}-{i}" for i, d in enumerate(DECOYS)]
)
def test_rule_leaves_its_decoys(rule: str, text: str) -> None:
    assert [
        (h.rule, text.encode()[h.start : h.end]) for h in ENGINE.scan(View(text.encode()))
    ] == []


def test_every_builtin_rule_has_examples_and_a_literal_anchor() -> None:
    assert [r.id for r in BUILTIN_RULES if not r.examples] == []
    assert [r.id for r in BUILTIN_RULES if r.regex is not None and not r.anchors] == []
    assert len({r.id for r in BUILTIN_RULES}) == len(BUILTIN_RULES)


def test_the_catalog_covers_forty_kinds_and_every_category() -> None:
    assert len(all_kinds()) >= 40
    categories = {r.category for r in BUILTIN_RULES}
    assert categories >= {
        "cloud",
        "vcs",
        "saas",
        "token",
        "key-value",
        "connection-string",
        "session",
        "cli",
        "pii",
        "product",
    }
    kinds = all_kinds()
    needed = [
        "aws-access-key-id",
        "gcp-api-key",
        "azure-storage-key",
        "github-token",
        "gitlab-token",
        "slack-token",
        "webhook-url",
        "stripe-key",
        "sendgrid-key",
        "twilio-key",
        "openai-key",
        "jwt",
        "bearer-token",
        "basic-auth",
        "cookie",
        "url-password",
        "private-key",
        "password",
        "email",
        "flux-token",
        "lyftdata-api-key",
        "enrollment-secret",
        "bootstrap-token",
    ]
    for kind in needed:
        assert kind in kinds


def test_ruleset_hash_is_stable_and_changes_with_the_rules() -> None:
    assert ruleset_sha256() == ruleset_sha256()
    assert ruleset_sha256(BUILTIN_RULES[:-1]) != ruleset_sha256()


def test_the_report_itself_reviews_clean() -> None:
    """Rule descriptions are in every report; none of them may look like a secret."""
    from bundler.source import MemorySource

    redactor = BundleRedactor()
    report = redactor.report().model_dump_json(by_alias=True, indent=2)
    result = review_source(MemorySource({"redaction-report.json": report}))
    assert result.findings == []


@pytest.mark.parametrize(
    ("line", "kind"),
    [
        ("FLUX_WORKERS__BOOTSTRAP_TOKEN=" + "a" * 20 + "b1", "flux-token"),
        ("FLUX_AUTH_TOKEN=zzzz1234yyyy", "flux-token"),
        ('{"session_token": "0f8a9b7c6d5e4f3a2b1c0d9e8f7a6b5c"}', "session-token"),
        ("exec_token: 9f8e7d6c5b4a39281706f5e4d3c2b1a0", "exec-token"),
        ("bootstrap_token = 'Zx81kQ-bootstrap'", "bootstrap-token"),
        ("LYFTDATA_WORKER_API_KEY=F4177-AM9PZIEW7MPI7IL28ERE", "lyftdata-api-key"),
        ("LYFTDATA_JWT_PSK=deadbeefcafe0001", "lyftdata-secret"),
        ('{"enrollment_secret": "0a1b2c3d4e5f"}', "enrollment-secret"),
        ("--worker-api-key F4177-AM9PZIEW7MPI7IL28ERE", "lyftdata-api-key"),
    ],
)
def test_product_secrets_get_their_own_kinds(line: str, kind: str) -> None:
    outputs, _, _ = run({"p.log": line + "\n"})
    assert f"[REDACTED:{kind}:".encode() in outputs["p.log"], outputs["p.log"]
