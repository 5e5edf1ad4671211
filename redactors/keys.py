"""Which key names hold secrets, and which values are only placeholders.

One policy serves every syntax: JSON/YAML/TOML keys, ``KEY=value`` lines,
HTTP headers, CLI flags and table headers. A key name is split into words
(``DB_PASSWORD`` -> db, password; ``sharedKey`` -> shared, key) and judged on
the words, which is what keeps ``keyboard``, ``tokenizer``, ``authorName``,
``passthrough`` and ``max_tokens`` out while ``N8N_PASS``,
``FLUX_WORKERS__BOOTSTRAP_TOKEN`` and ``x-api-key`` are in. A trailing word
that describes the secret rather than holding it (``password_file``,
``token_ttl``, ``auth_url``) makes the key harmless.
"""

from __future__ import annotations

import re
from functools import lru_cache

_CAMEL = re.compile(r"([a-z0-9])([A-Z])")
_WORDS = re.compile(r"[a-z0-9]+")

# fmt: off
SECRET_WORDS = frozenset({
    "password", "passwd", "passphrase", "pwd", "pw", "pass", "pgpassword", "pgpass", "secret",
    "token", "credential", "credentials", "creds", "cookie", "cookies", "apikey", "authkey",
    "authtoken", "accesstoken", "refreshtoken", "idtoken", "sessiontoken", "sessionid",
    "sessionkey", "privatekey", "secretkey", "accesskey", "sharedkey", "accountkey", "masterkey",
    "clientsecret", "psk", "jwt", "bearer", "authorization", "auth", "dsn", "connectionstring",
    "connstr", "webhook", "webhooks", "sig", "hmac", "otp", "sasl", "signingkey", "encryptionkey",
    "licensekey", "enrollmentkey", "mysqlpwd",
})
# fmt: on
"""A key holding any of these words holds a secret (unless a harmless suffix follows)."""

# fmt: off
KEY_QUALIFIERS = frozenset({
    "api", "access", "secret", "private", "account", "shared", "master", "auth", "client",
    "enrollment", "enrolment", "signing", "encryption", "encrypt", "ssh", "tls", "ssl", "license",
    "licence", "service", "db", "database", "session", "webhook", "app", "admin", "bootstrap",
    "join", "hmac", "root", "storage", "deploy", "sas", "subscription", "primary", "secondary",
    "crypt", "cipher", "aes", "gpg", "pgp", "worker", "agent", "consumer", "integration",
    "ingest", "write", "read",
})
# fmt: on
"""``key`` alone is too common (cache key, sort key); with one of these before it, it is secret."""

# fmt: off
HARMLESS_SUFFIXES = frozenset({
    "file", "files", "path", "paths", "dir", "length", "len", "ttl", "expiry", "expires",
    "expiration", "exp", "timeout", "count", "type", "kind", "name", "names", "id", "ids",
    "enabled", "enable", "required", "min", "max", "policy", "policies", "header", "env", "var",
    "field", "prefix", "format", "alg", "algorithm", "method", "version", "url", "urls", "uri",
    "endpoint", "location", "hint", "label", "present", "configured", "rotation", "rotated",
    "retention", "lifetime", "validity", "window", "period", "delay", "backoff", "rotate",
    "refresh", "age", "at", "time", "created", "updated", "interval", "size", "bits", "strength",
    "scope", "scopes", "status", "state", "mode", "source", "provider", "store", "backend",
    "issuer", "audience", "usage", "used", "limit", "reset", "changed", "ref", "reference", "set",
    "valid", "invalid", "error", "errors", "missing", "mismatch", "rejected", "accepted",
    "expired", "fingerprint", "role", "roles", "owner", "user", "username", "login", "email",
    "duration", "seconds", "ms", "total", "level", "strategy", "rule", "rules", "permissions",
    "allowed", "ok", "check", "checks", "result", "request", "requests", "response", "fetch",
    "fetched", "generated", "regex", "pattern", "placeholder", "manager", "service", "server",
    "storage", "cache", "helper", "command", "cmd", "hash_alg",
})
# fmt: on
"""A trailing word like these describes a secret without holding it (``token_ttl``)."""

ALWAYS_SECRET_NAMES = frozenset({"private_key_id", "privatekeyid", "client_key_data"})

_VARIABLE_RE = re.compile(rb"([$%])(?:[A-Z_][A-Z0-9_]*|[a-z_][a-z0-9_]*)%?")
"""``$DB_PASSWORD``, ``%APPDATA%``: a reference in one naming style. ``$YMQd5JQHOz0`` (mixed
case and digits) is a password that happens to start with a dollar sign."""
_PLACEHOLDER_RE = re.compile(
    rb"""^(?:
        |\$\{[^}]*\}
        |\{\{.*\}\}|<[^<>]*>|\(?\*+[^*]*\*+\)?|\**(?:redacted|hidden|masked|removed|omitted)\**
        |null|none|nil|undefined|true|false|yes|no|on|off|\[\]|\{\}|-|x{3,}|\.{3,}|_{3,}
        |\#+|\?+
    )$""",
    re.IGNORECASE | re.VERBOSE | re.DOTALL,
)


def key_words(name: str) -> tuple[str, ...]:
    """``"sharedKey"`` -> ("shared", "key"); ``"DB_PASSWORD"`` -> ("db", "password")."""
    return tuple(_WORDS.findall(_CAMEL.sub(r"\1_\2", name).lower()))


@lru_cache(maxsize=8192)
def secret_kind(name: str) -> str | None:
    """The token kind for a key that holds a secret, or None when the key is harmless."""
    words = key_words(name)
    if not words:
        return None
    joined = "_".join(words)
    if joined in ALWAYS_SECRET_NAMES:
        return "private-key-id" if "private" in joined else "private-key"
    if "webhook" in words or "webhooks" in words:
        return "webhook-url"
    last = words[-1]
    if last in HARMLESS_SUFFIXES and not (last == "hash" or joined.endswith("hash_b64")):
        return None
    for index, word in enumerate(words):
        if word in SECRET_WORDS:
            return _kind_for(words, word)
        if word == "key" and any(q in KEY_QUALIFIERS for q in words[:index]):
            return _kind_for(words, word)
        if word == "key" and index == len(words) - 1 and len(words) == 2 and words[0] == "tls":
            return "private-key"
    # Compound words without separators: "dbpassword", "authtoken2".
    compact = "".join(words)
    for strong in ("password", "passwd", "passphrase", "secret", "apikey", "accesskey"):
        if compact.endswith(("secrets", "passwords", "apikeys")):
            break  # a collection ("secrets:", "/admin/secrets"), not a value
        if strong in compact and not compact.startswith(("secretary", "secretariat")):
            return _kind_for(words, strong)
    return None


def _kind_for(words: tuple[str, ...], word: str) -> str:
    joined = "_".join(words)
    if words[0] == "flux" and ("token" in words or word == "token"):
        return "flux-token"
    if words[0] == "lyftdata" or joined.endswith("worker_api_key"):
        return "lyftdata-api-key" if "api" in words else "lyftdata-secret"
    if "enrollment" in words or "enrolment" in words:
        return "enrollment-secret"
    if "bootstrap" in words:
        return "bootstrap-token"
    if joined.endswith(("session_token", "sessiontoken")):
        return "session-token"
    if joined.endswith("exec_token"):
        return "exec-token"
    if word in {"password", "passwd", "pwd", "pw", "pass", "passphrase", "pgpassword", "pgpass"}:
        return "password"
    if word in {"mysqlpwd"}:
        return "password"
    if word in {"cookie", "cookies", "sessionid"}:
        return "cookie"
    if word in {"authorization", "auth", "bearer", "authkey", "authtoken"}:
        return "auth"
    if word in {"dsn", "connectionstring", "connstr"}:
        return "connection-string"
    if word == "sig":
        return "signature"
    if word in {"credential", "credentials", "creds"}:
        return "credential"
    if word in {"apikey", "key"} or "api" in words:
        return "api-key" if ("api" in words or word == "apikey") else "secret-key"
    if "token" in word:
        return "token"
    if word in {"privatekey"}:
        return "private-key"
    return "secret"


def is_placeholder(value: bytes) -> bool:
    """Values that are not secrets: empty, templated, masked, null-ish, or already tokens."""
    stripped = value.strip().strip(b"\"'")
    if not stripped:
        return True
    if b"[REDACTED:" in stripped or b"REDACTED-" in stripped:
        return True
    if len(stripped) <= 64 and (
        _PLACEHOLDER_RE.match(stripped) or _VARIABLE_RE.fullmatch(stripped)
    ):
        return True
    # "********", "xxxxxx", "------": masks; "00000000" is a (bad) password and stays secret.
    return (
        len(set(stripped)) == 1
        and len(stripped) >= 3
        and (stripped[0] in b"xX" or not stripped.isalnum())
    )
