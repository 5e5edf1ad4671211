"""The manifest's last redaction pass copies an outcome only when it changes something."""

from __future__ import annotations

from bundler.archive.manifest_draft import redact_outcome
from schemas import CollectorOutcome

SECRET = "hunter2-Zq8rT5vW"


def _redact(text: str) -> str:
    return text.replace(SECRET, "[REDACTED]")


def test_an_outcome_without_secrets_is_kept_as_is() -> None:
    outcome = CollectorOutcome(
        id="ssh.h01.logs", kind="ssh", target="h01", status="skipped", note="variable X unset"
    )
    assert redact_outcome(outcome, _redact) is outcome


def test_a_secret_left_in_a_message_or_note_is_redacted_in_a_copy() -> None:
    outcome = CollectorOutcome(
        id="http.workers",
        kind="http",
        target="/workers",
        status="failed",
        error_message=f"401 for token {SECRET}",
        note=f"retried with {SECRET}",
    )
    redacted = redact_outcome(outcome, _redact)
    assert redacted is not outcome
    assert redacted.error_message == "401 for token [REDACTED]"
    assert redacted.note == "retried with [REDACTED]"
    assert SECRET in (outcome.error_message or "")  # the recorder's own copy is not touched
