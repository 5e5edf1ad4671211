"""A secret's lookup with a literal fallback: the fallback is the secret, in clear.

Before: ``os.environ.get("DB_PASSWORD", "pw")`` was taken for code (rightly: a lookup
is not a value) and its fallback kept, in redact and in review, in Django settings,
Compose files and Node configs alike.
"""

from __future__ import annotations

import pytest

from bundler.source import MemorySource
from redactors.review import review_source
from tests.support.redaction import assert_shape_redacted, redacted_lines_kept, run

SETTINGS = b"""import os
SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY", "dj-insecure-Fallback-77")
DATABASES = {"default": {"PASSWORD": os.getenv("DB_PASSWORD", "Pg-Fallback-88"),
                         "HOST": os.getenv("DB_HOST", "localhost")}}
EMAIL_HOST_PASSWORD = config("EMAIL_HOST_PASSWORD", default="Mail-Fallback-66")
DEBUG = os.environ.get("DEBUG", "false")
"""
COMPOSE = b"""services:
  db:
    environment:
      POSTGRES_PASSWORD: ${POSTGRES_PASSWORD:-Cmp-Fallback-99}
      POSTGRES_USER: ${POSTGRES_USER:-app}
      REPLICA_PASSWORD: ${REPLICA_PASSWORD:-$POSTGRES_PASSWORD}
"""
NODE = b"""module.exports = {
  user: process.env.DB_USER || "app",
  password: process.env.DB_PASSWORD ?? 'Js-Fallback-55',
};
"""
SECRETS = [b"dj-insecure-Fallback-77", b"Pg-Fallback-88", b"Mail-Fallback-66",
           b"Cmp-Fallback-99", b"Js-Fallback-55"]  # fmt: skip
KEPT = [b'"localhost"', b'"false"', b"${POSTGRES_USER:-app}", b"$POSTGRES_PASSWORD}", b'"app"']


def test_the_fallbacks_are_redacted_and_the_rest_kept() -> None:
    files = {"settings.py": SETTINGS, "docker-compose.yml": COMPOSE, "config.js": NODE}
    outputs, _, refused = run(files)
    assert refused == {}
    text = b"".join(outputs.values())
    for secret in SECRETS:
        assert secret not in text, secret
    for kept in KEPT:
        assert kept in text, kept
    for name, data in files.items():  # the lookups themselves, line by line, are evidence
        assert outputs[name].count(b"\n") == data.count(b"\n")


def test_review_sees_them_as_the_redactor_does() -> None:
    found = review_source(
        MemorySource({"settings.py": SETTINGS, "docker-compose.yml": COMPOSE, "config.js": NODE})
    ).findings
    lines = {(f.member, f.line) for f in found}
    fallbacks = {("settings.py", 2), ("settings.py", 3), ("settings.py", 5)}
    fallbacks |= {("docker-compose.yml", 4), ("config.js", 3)}
    assert fallbacks <= lines


OTHER_FORMS: dict[str, tuple[str, list[str], list[str]]] = {
    # name: (file text, fallbacks that must go, evidence that must stay as written)
    "ruby-block": (
        'db_password = ENV.fetch("DB_PASSWORD") { "Rb-Block-31" }\n'
        "api_key = ENV.fetch('API_KEY') do 'Rb-DoEnd-32' end\n"
        'host = ENV.fetch("DB_HOST") { "db.internal" }\n'
        'pool = ENV.fetch("DB_POOL") do "5" end\n',
        ["Rb-Block-31", "Rb-DoEnd-32"],
        ['ENV.fetch("DB_PASSWORD") { "[REDACTED:', "ENV.fetch('API_KEY') do '[REDACTED:",
         'host = ENV.fetch("DB_HOST") { "db.internal" }\n', 'ENV.fetch("DB_POOL") do "5" end'],
    ),
    "ruby-subscript-or": (
        'password = ENV["DB_PASSWORD"] || "Rb-Or-33"\n'
        "user = ENV['DB_USER'] || 'app'\n",
        ["Rb-Or-33"],
        ['password = ENV["DB_PASSWORD"] || "[REDACTED:', "user = ENV['DB_USER'] || 'app'\n"],
    ),
    "python-or": (
        'PASSWORD = os.environ.get("DB_PASSWORD") or "Py-Or-34"\n'
        "SECRET_KEY = os.getenv('SECRET_KEY') or 'Py-Or-35'\n"
        'HOST = os.environ.get("DB_HOST") or "localhost"\n'
        'DEBUG = os.getenv("DEBUG") or "false"\n',
        ["Py-Or-34", "Py-Or-35"],
        ['os.environ.get("DB_PASSWORD") or "[REDACTED:', "os.getenv('SECRET_KEY') or '[REDACTED:",
         'HOST = os.environ.get("DB_HOST") or "localhost"\n', 'os.getenv("DEBUG") or "false"'],
    ),
    "php-elvis": (
        "$pass = getenv('DB_PASSWORD') ?: 'Php-Elvis-36';\n"
        "$host = getenv('DB_HOST') ?: 'localhost';\n",
        ["Php-Elvis-36"],
        ["getenv('DB_PASSWORD') ?: '[REDACTED:", "$host = getenv('DB_HOST') ?: 'localhost';\n"],
    ),
    "javascript-subscript": (
        'const secret = process.env["SESSION_SECRET"] || "Js-Bracket-38";\n'
        'const user = process.env["DB_USER"] || "app";\n',
        ["Js-Bracket-38"],
        ['process.env["SESSION_SECRET"] || "[REDACTED:', 'process.env["DB_USER"] || "app"'],
    ),
    "named-by-the-key": (  # the variable's name says nothing; the key it is assigned to does
        'password = os.getenv("PG_CONN_VAR", "Py-Key-39")\n'
        'region = os.getenv("PG_CONN_VAR", "eu-west-1")\n'
        'if password == os.getenv("PG_CONN_VAR", "dev-default"):\n',
        ["Py-Key-39"],
        ['password = os.getenv("PG_CONN_VAR", "[REDACTED:',
         'region = os.getenv("PG_CONN_VAR", "eu-west-1")\n', '"dev-default"'],
    ),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(OTHER_FORMS))
def test_other_forms_of_a_fallback_go_and_the_lookup_stays(name: str) -> None:
    """Before: only a call's second argument, ``process.env.X || "…"`` and ``${X:-…}`` were
    taken; a Ruby block, Python's ``or``, PHP's ``?:``, ``ENV["X"] ||`` and a lookup named
    only by the key it is assigned to kept their fallback in clear."""
    text, secrets, keep = OTHER_FORMS[name]
    assert_shape_redacted({"settings.rb": text}, secrets, keep)


@pytest.mark.parametrize("name", sorted(OTHER_FORMS))
def test_review_finds_other_forms_and_passes_their_output(name: str) -> None:
    text, secrets, _ = OTHER_FORMS[name]
    found = review_source(MemorySource({"settings.rb": text.encode()})).findings
    expected = {n for n, line in enumerate(text.splitlines(), 1) if any(s in line for s in secrets)}
    assert expected <= {f.line for f in found}
    outputs = redacted_lines_kept({"settings.rb": text})
    assert review_source(MemorySource(outputs)).findings == []


LOOKUP_KEPT = [
    # (line, what it becomes): the key rule leaves the lookup, the fallback rule takes the literal
    ('token = process.env.TOKEN || "Js-Or-51"', 'token = process.env.TOKEN || "[REDACTED:token:'),
    ("  password: process.env.DB_PASSWORD ?? 'Js-Or-52',",
     "  password: process.env.DB_PASSWORD ?? '[REDACTED:password:"),
    ('const pw = process.env.DB_PASSWORD ?? "Js-Or-53";',
     'const pw = process.env.DB_PASSWORD ?? "[REDACTED:password:'),
    ("api_key: process.env.VENDOR_VAR || 'Js-Or-54',",
     "api_key: process.env.VENDOR_VAR || '[REDACTED:api-key:"),
    ("const token = import.meta.env.VITE_TOKEN || `Js-Or-55`;",
     "const token = import.meta.env.VITE_TOKEN || `[REDACTED:token:"),
    ('password = os.getenv("DB_PASSWORD", "Py-Default-56")',
     'password = os.getenv("DB_PASSWORD", "[REDACTED:password:'),
    ("token = process.env.TOKEN", "token = process.env.TOKEN\n"),
    ("token = process.env.TOKEN || readToken()", "token = process.env.TOKEN || readToken()\n"),
    ("token = process.env.TOKEN ?? config.token", "token = process.env.TOKEN ?? config.token\n"),
]  # fmt: skip


@pytest.mark.parametrize(("line", "expected"), LOOKUP_KEPT)
def test_the_key_rule_leaves_the_lookup_and_takes_no_more(line: str, expected: str) -> None:
    """Before: ``token = process.env.TOKEN || "x"`` was redacted whole by ``kv-token`` (and
    ``token = process.env.TOKEN`` alone too): the lookup is code, evidence of where the
    secret comes from; only a literal fallback is a secret."""
    output = redacted_lines_kept({"app.js": line + "\n"})["app.js"]
    assert output.startswith(expected.encode()), output
    secrets = [word for word in ("Js-Or-", "Py-Default-") if word in line]
    assert not any(secret.encode() in output for secret in secrets)


def test_a_bare_word_after_the_lookup_is_still_taken_whole() -> None:
    """``token: process.env.X || hunter2-X`` reads as no code anyone could tell from a
    value: it fails closed, redacted whole as before."""
    output = redacted_lines_kept({"notes.txt": "token = process.env.TOKEN || hunter2-X\n"})
    assert b"hunter2" not in output["notes.txt"]
    assert output["notes.txt"].startswith(b"token = [REDACTED:token:")
