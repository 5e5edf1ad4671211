"""A secret's lookup with a literal fallback: the fallback is the secret, in clear.

Before: ``os.environ.get("DB_PASSWORD", "pw")`` was taken for code (rightly: a lookup
is not a value) and its fallback kept, in redact and in review, in Django settings,
Compose files and Node configs alike.
"""

from __future__ import annotations

from bundler.source import MemorySource
from redactors.review import review_source
from tests.support.redaction import run

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
