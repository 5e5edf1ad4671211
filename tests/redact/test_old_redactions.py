"""Output an older redaction (or another tool) left half-done: review flags it, redact finishes it.

Before the line-owning rule, ``password = correct horse battery staple`` lost only its first
word: ``password = [REDACTED:password:a5565af4] horse battery staple``. A rule whose value runs
over a token treats the token as one piece of the value and judges what is still in clear,
so review (the same rules over the output) calls such a tail residue, and redact replaces it
when run again. What this version writes next to a token on purpose stays clean.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from bundler.cli import cli
from bundler.source import MemorySource
from redactors.keys import is_placeholder
from redactors.review import review_source
from redactors.tokens import TOKEN_RE
from tests.support.redaction import run

OLD = "[REDACTED:password:a5565af4]"
"""A token an earlier redaction wrote (its key is gone with that run: the value is unknown)."""

TAILS: dict[str, tuple[str, str]] = {
    # name: (member text as an older redaction left it, the clear tail that must go)
    "ini-line-owning-key": (f"[db]\npassword = {OLD} horse battery staple\n", "horse battery"),
    "env-line-owning-key": (f"DB_PASSWORD={OLD} amber falcon meadow\n", "falcon meadow"),
    "commented-out-key": (f"# secret: {OLD} glacier rivet\n", "glacier rivet"),
    "json-quoted": (f'{{"password": "{OLD} orchid lantern"}}\n', "orchid lantern"),
    "ini-quoted": (f"password = '{OLD}-Pebble-77'\n", "-Pebble-77"),
    "url-userinfo": (f"postgres://app:{OLD}-Xk9.Zq@db:5432/flux\n", "-Xk9.Zq"),
    "connection-string": (f"Server=db;User Id=sa;Password={OLD}-Zq8.77;Database=x\n", "-Zq8.77"),
    "connection-string-words": (
        f'cs="Server=db;User Id=sa;Password={OLD} horse battery;Database=x"\n',
        "horse battery",
    ),
    "odbc-braces": (f"Driver=pg;Pwd={{{OLD} willow tundra}};\n", "willow tundra"),
    "prose-password": (f"login failed: password is {OLD}-Prose-42\n", "-Prose-42"),
    "vault-login": (f"$ vault login {OLD}.Xk82Jq0PzR7m\n", ".Xk82Jq0PzR7m"),
    "cli-flag": (f"mysql -uroot -p{OLD}-Sq1.x9 flux\n", "-Sq1.x9"),
    "redis-directive": (f"requirepass {OLD} horse battery\n", "horse battery"),
}


@pytest.mark.parametrize("name", sorted(TAILS))
def test_review_flags_the_clear_tail_beside_an_old_token(name: str) -> None:
    text, tail = TAILS[name]
    line = 1 + text[: text.index(OLD)].count("\n")
    result = review_source(MemorySource({"old.conf": text.encode()}))
    assert not result.clean
    assert {(f.member, f.line, f.check) for f in result.findings} >= {
        ("old.conf", line, "detector")
    }
    assert tail not in result.model_dump_json()


@pytest.mark.parametrize("name", sorted(TAILS))
def test_redacting_an_old_output_again_replaces_its_tail(name: str) -> None:
    text, tail = TAILS[name]
    outputs, _, _ = run({"old.conf": text})
    again = outputs["old.conf"]
    assert tail.encode() not in again
    assert OLD.encode() in again  # the old token stays: only what is in clear is replaced
    assert again.count(b"\n") == text.count("\n")
    assert review_source(MemorySource(outputs)).clean


def test_a_tail_of_words_keeps_the_blank_before_it() -> None:
    outputs, _, _ = run({"old.ini": f"password = {OLD} horse battery staple\n"})
    assert TOKEN_RE.fullmatch(outputs["old.ini"].split(b" ")[-1].rstrip())
    assert outputs["old.ini"].startswith(f"password = {OLD} [REDACTED:password:".encode())


FRESH: dict[str, tuple[str, str]] = {
    # what this version redacts so that something stays in clear beside the token: (the
    # original line, what of it stays)
    "long-token-then-a-note": (f"token: {'Zq8' * 8}Lm4 (expires in 3600s)\n", "(expires in"),
    "logfmt-fields": ("password=Solo-Pw-1 level=info msg=started\n", "level=info"),
    "inline-comment": ("password = maple ember zenith # rotated 2026-11\n", "# rotated"),
    "mid-line-value": ("INFO connecting with password=Mid-Pw-2 then retrying\n", "then retrying"),
    "url-userinfo": ("postgres://app:Same-pw-77@db:5432/flux\n", "@db:5432/flux"),
    "prose-then-more-words": ("the password was: Pl4in-old then rotated\n", "then rotated"),
    "pipe-after-a-value": ("password: Pipe-pw|next\n", "]|next"),
    "prose-after-a-semicolon": ("login password=abc9x failed; retrying\n", " failed; retrying"),
}


@pytest.mark.parametrize("name", sorted(FRESH))
def test_what_this_version_leaves_beside_a_token_reviews_clean(name: str) -> None:
    text, kept = FRESH[name]
    outputs, _, _ = run({"a.log": text})
    assert b"[REDACTED:" in outputs["a.log"]
    assert kept.encode() in outputs["a.log"]
    assert review_source(MemorySource(outputs)).findings == []
    again, _, _ = run(outputs)  # and redacting it again changes nothing
    assert again == outputs


def test_a_long_first_word_keeps_only_a_note_in_parentheses() -> None:
    """A token hides how long the word it replaced was, so the redactor decides a line-owning
    value's extent by what follows it: what it leaves, review leaves too."""
    word = "Zq8" * 8 + "Lm4"
    outputs, _, _ = run({"a.log": f"token: {word} expires in 3600s\n"})
    assert outputs["a.log"].count(b"[REDACTED:") == 1
    assert b"expires" not in outputs["a.log"]


def test_a_value_is_a_placeholder_only_when_nothing_beside_its_tokens_is_in_clear() -> None:
    assert is_placeholder(OLD.encode())
    assert is_placeholder(f'"{OLD}", {OLD};'.encode())
    assert is_placeholder(f"{OLD} xxxxxxxx".encode())  # a mask beside it: still no secret
    assert not is_placeholder(f"{OLD} horse battery staple".encode())
    assert not is_placeholder(b"REDACTED-password-a5565af4-Pebble-77")


def test_cli_review_rejects_an_old_tail_and_accepts_it_redacted_again(tmp_path: Path) -> None:
    old = tmp_path / "old"
    old.mkdir()
    (old / "app.ini").write_text(f"[db]\nuser = flux\npassword = {OLD} horse battery staple\n")
    runner = CliRunner()
    reviewed = runner.invoke(cli, ["review", str(old)])
    assert reviewed.exit_code == 1, reviewed.output
    assert "app.ini:3\tpassword\tdetector\t" in reviewed.stdout
    assert "horse" not in reviewed.output
    assert "battery" not in reviewed.output
    again = tmp_path / "again"
    redacted = runner.invoke(cli, ["redact", str(old), "--out", str(again)])
    assert redacted.exit_code == 0, redacted.output
    assert b"horse" not in (again / "app.ini").read_bytes()
    assert runner.invoke(cli, ["review", str(again)]).exit_code == 0
