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

import base64
import binascii
import re
from functools import lru_cache

from .tokens import clear_text

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
    "licensekey", "enrollmentkey", "mysqlpwd", "authtok", "jsessionid", "phpsessid", "sessid",
    "sshpass", "requirepass", "masterauth",
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
    "ingest", "write", "read", "fernet", "preshared", "unseal", "recovery", "routing",
    "sensitive",
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
    "valid", "invalid", "error", "errors", "exception", "exceptions", "missing", "mismatch",
    "rejected", "accepted",
    "expired", "fingerprint", "role", "roles", "owner", "user", "username", "login", "email",
    "duration", "seconds", "ms", "total", "level", "strategy", "rule", "rules", "permissions",
    "allowed", "ok", "check", "checks", "result", "request", "requests", "response", "fetch",
    "fetched", "generated", "regex", "pattern", "placeholder", "manager", "service", "server",
    "storage", "cache", "helper", "command", "cmd", "hash_alg", "variable", "variables", "param",
    "parameter", "arg", "argument", "option", "flag", "description", "desc", "disabled",
    "disable", "anonymous", "stdin", "fd", "hasher", "hashers", "validator", "validators",
    "scheme", "schemes", "last4", "last", "first4", "suffix", "masked", "preview", "redacted",
})
# fmt: on
"""A trailing word like these describes a secret without holding it (``token_ttl``;
``--password-stdin`` and ``--passphrase-fd 0`` say where the secret comes from)."""

PASSWORD_WORDS = frozenset({"password", "passwd", "passphrase", "pwd", "pass"})
"""After ``key`` in a name, these make it a password's key (Java's
``javax.net.ssl.keyStorePassword``), not a key: its value is taken whatever it looks like."""

ONE_TIME_WORDS = frozenset({"csrf", "xsrf", "authenticity", "nonce", "captcha"})
"""Anti-forgery tokens in forms and pages: single-use, bound to a page view (gitleaks and
detect-secrets allowlist them); not credentials."""

ALWAYS_SECRET_NAMES = frozenset({"private_key_id", "privatekeyid", "client_key_data"})

NEGATING_WORDS = frozenset({"no", "without", "skip", "disable"})
"""A first word that turns the rest off: ``--no-password``, ``--skip-password``,
``--without-auth`` are switches that say there is no secret, so the word after such a flag
is the command's next argument (``pg_dump --no-password mydb``), not a value."""

_VARIABLE_RE = re.compile(rb"([$%])(?:[A-Z_][A-Z0-9_]*|[a-z_][a-z0-9_]*|[0-9@*#?])%?")
"""``$DB_PASSWORD``, ``%APPDATA%``: a reference in one naming style. ``$YMQd5JQHOz0`` (mixed
case and digits) is a password that happens to start with a dollar sign."""
_PLACEHOLDER_RE = re.compile(
    rb"""^(?:
        |\$\{[^}]*\}
        |\{\{.*\}\}|<[^<>]*>|\(?\*+[^*]*\*+\)?|\**(?:redacted|hidden|masked|removed|omitted)\**
        |null|none|nil|undefined|true|false|yes|no|on|off|\[\]|\{\}|-|~|x{3,}|\.{3,}|_{3,}
        |\#+|\?+|\{[A-Za-z_][A-Za-z0-9_.-]*\}|%[A-Za-z_][A-Za-z0-9_]*%
    )$""",
    re.IGNORECASE | re.VERBOSE | re.DOTALL,
)


_SELF_DECLARED_RE = re.compile(
    rb"""(?ix)
    (?:^|[_\-.~])(?:your|put[_\-]?your|insert[_\-]?your|enter[_\-]?your)(?:[_\-.]|$)
    |^your[A-Z_-]|replace[_\-]?me|placeholder|\bdummy\b
    |(?:token|key|secret|string|password|here)[_\-]?here$|example(?:key)?$
    """
)
"""A value that says it is not real: documented examples (AWS's ``...EXAMPLE`` keys),
``<prefix>_YOUR_TOKEN_HERE``, ``REPLACE_ME``. (``changeme`` is not one: it is the
default password of many products, and often still the real one.)"""
_DECLARING_WORDS = (b"your", b"here", b"example", b"placeholder", b"replace", b"dummy")
_SEPARATORS = frozenset(b"-_.~/+=:")
_MASK = frozenset(b"xX*#")
_DIGIT_RUN = b"01234567890123456789"
_ALPHA_RUN = b"abcdefghijklmnopqrstuvwxyz"


def _masked(value: bytes) -> bool:
    """Mostly mask characters (``ghp_xxxx...``, ``AKIAXXXXXXXXXXXXXXXX``, ``xoxb-xxx-xxx``)."""
    if value.count(b"x") + value.count(b"X") + value.count(b"*") + value.count(b"#") < 6:
        return False  # the common case, decided in C
    head, sep, tail = value.partition(b"_") if b"_" in value[:9] else value.partition(b"-")
    if sep and tail and len(head) <= 8:
        value = tail  # the format's prefix (glsa_, xoxb-) is not part of the mask
    body = [c for c in value if c not in _SEPARATORS]
    if len(body) < 6:
        return False
    masked = sum(1 for c in body if c in _MASK)
    if masked >= 0.75 * len(body) and masked >= 6:
        return True
    run = len(value) - len(value.rstrip(b"xX*#"))
    return run >= 12 and run >= 0.6 * len(value)  # GR1348941XXXXXXXXXXXXXXXXXXXX


def _sequential(value: bytes) -> bool:
    """A token prefix and then ``1234567890`` or ``abcdefgh`` (``xoxp-1234567890``).

    Without a prefix a sequence is a (weak) password like any other and stays secret.
    """
    for sep in b"-_.":
        head, _, body = value.partition(bytes([sep]))
        if body and 2 <= len(head) <= 8 and head.isalpha():
            return len(body) >= 8 and (body in _DIGIT_RUN or body.lower() in _ALPHA_RUN)
    return False


def declares_placeholder(value: bytes) -> bool:
    """Whether a whole token-shaped value is a mask, a sequence or a documented example."""
    if _masked(value) or _sequential(value):
        return True
    low = value.lower()
    return any(word in low for word in _DECLARING_WORDS) and bool(_SELF_DECLARED_RE.search(value))


def key_words(name: str) -> tuple[str, ...]:
    """``"sharedKey"`` -> ("shared", "key"); ``"DB_PASSWORD"`` -> ("db", "password")."""
    return tuple(_WORDS.findall(_CAMEL.sub(r"\1_\2", name).lower()))


CREDENTIAL_COLUMNS = {"authentication_string": "password-hash", "aws_sec_key": "secret-key"}
"""Names that say nothing of a secret in any word but hold one: MySQL's ``mysql.user`` keeps
each account's password hash (or its plugin's credential) in ``authentication_string``;
Fluentd's S3 and CloudWatch plugins take the AWS secret access key as ``aws_sec_key``."""


@lru_cache(maxsize=8192)
def secret_kind(name: str) -> str | None:
    """The token kind for a key that holds a secret, or None when the key is harmless."""
    words = key_words(name)
    if not words:
        return None
    if words[0] in NEGATING_WORDS and len(words) > 1:
        return None
    joined = "_".join(words)
    if joined in ALWAYS_SECRET_NAMES:
        return "private-key-id" if "private" in joined else "private-key"
    if joined in CREDENTIAL_COLUMNS:
        return CREDENTIAL_COLUMNS[joined]
    if "webhook" in words or "webhooks" in words:
        return "webhook-url"
    if words[-3:] == ("replica", "set", "key"):
        return "secret-key"  # MongoDB's keyfile content (a Helm chart's auth.replicaSetKey)
    if words[-2:] == ("secret", "id"):
        return "secret"  # HashiCorp: Consul/Nomad ACL SecretID, Vault AppRole secret_id (not ids)
    if ONE_TIME_WORDS & set(words):
        return None  # authenticity_token, csrf_token, nonce: a one-time form value
    last = words[-1]
    if last in HARMLESS_SUFFIXES and not (last == "hash" or joined.endswith("hash_b64")):
        return None
    for index, word in enumerate(words):
        if word in SECRET_WORDS:
            return _kind_for(words, word)
        if (
            word == "key"
            and any(q in KEY_QUALIFIERS for q in words[:index])
            and PASSWORD_WORDS.isdisjoint(words[index + 1 :])  # ssl_key_store_password
        ):
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
    one_word_token = len(words) == 1 and len(compact) > 5 and compact.endswith("token")
    if one_word_token and not compact.startswith(("csrf", "xsrf")):
        return "token"  # Docker's config.json: "identitytoken", "registrytoken"
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
    if word in {"mysqlpwd", "authtok", "sshpass", "requirepass", "masterauth"}:
        # MySQL's MYSQL_PWD; SSSD's ldap_default_authtok (its bind password); SSHPASS, which
        # ``sshpass -e`` reads; Redis's requirepass and masterauth (its primary's password),
        # also as flags (``["--requirepass", "…"]``)
        return "password"
    if word in {"cookie", "cookies", "sessionid", "jsessionid", "phpsessid", "sessid"}:
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


CACHED_MAX = 512
"""Values up to this size have their verdicts (:func:`is_placeholder`, :func:`looks_secret`)
cached: one secret found in a structured document is asked about three or four times on
its way (found, scanned, replaced, learned), each ask ~12 us."""


# fmt: off
STATE_WORDS = frozenset({
    b"expired", b"revoked", b"rotated", b"missing", b"invalid", b"unset", b"not", b"none",
    b"hidden", b"required", b"refreshed", b"disabled", b"empty", b"absent",
})
# fmt: on
"""Words that open a statement about a secret (``token: expired at ...``, ``password: not
set``, ``token: [hidden]``), never a secret's own first word."""
_STATE_HEAD = re.compile(
    rb"(?:\[([A-Za-z]+)\]|\(([A-Za-z]+)\)|<([A-Za-z]+)>|([A-Za-z]+))(?=[ \t.,;:]|$)"
)
"""The value's first word, alone or wholly in brackets (not a redaction token's head)."""


def states_a_state(value: bytes) -> bool:
    """Whether ``value`` is a statement about its key's secret: it opens with one of
    :data:`STATE_WORDS` as a word of its own (``expired at 10:00``, ``[hidden]``), not glued to
    more (``not-a-real-pw`` and ``expired2024`` are values)."""
    head = _STATE_HEAD.match(value)
    if head is None:
        return False
    word = next(group for group in head.groups() if group is not None)
    return word.lower() in STATE_WORDS


def is_placeholder(value: bytes) -> bool:
    """Values that are not secrets: empty, templated, masked, null-ish, or already tokens."""
    if type(value) is bytes and len(value) <= CACHED_MAX:
        return _cached_placeholder(value)
    return _is_placeholder(value)


@lru_cache(maxsize=8192)
def _cached_placeholder(value: bytes) -> bool:
    return _is_placeholder(value)


_TOKEN_SEPARATORS = b" \t,;:\"'"
"""What may stand between the tokens of a value that is nothing but tokens (as in
``tokens.is_token_only``)."""


def _is_placeholder(value: bytes) -> bool:
    stripped = value.strip().strip(b"\"'")
    if not stripped:
        return True
    if b"[REDACTED:" in stripped or b"REDACTED-" in stripped:
        clear = clear_text(stripped)
        if clear == stripped:
            return True  # a token's text cut short, not a value beside a token
        # Only what is still in clear is judged: "[REDACTED:...] horse battery" is a value
        # an older redaction replaced in part (docs/redaction.md, "old redactions").
        return not clear.strip(_TOKEN_SEPARATORS) or _is_placeholder(clear)
    if len(stripped) <= 64 and (
        _PLACEHOLDER_RE.match(stripped) or _VARIABLE_RE.fullmatch(stripped)
    ):
        return True
    # "********", "xxxxxx", "------": masks; "00000000" is a (bad) password and stays secret.
    if (
        len(set(stripped)) == 1
        and len(stripped) >= 3
        and (stripped[0] in b"xX" or not stripped.isalnum())
    ):
        return True
    return len(stripped) <= 256 and declares_placeholder(stripped)


_IDENTIFIER_CALL_RE = re.compile(rb"[A-Za-z_$][A-Za-z0-9_$]*(?:\.[A-Za-z_$][A-Za-z0-9_$]*)*")
CODE_WORDS = frozenset({b"new", b"await", b"this", b"self", b"function", b"lambda", b"return"})
_SECRET_CMDLET = re.compile(
    rb"(?:ConvertTo|ConvertFrom|Get|Read|New|Import|Unprotect)-[A-Z][A-Za-z]{2,40}"
)
"""A PowerShell cmdlet that reads or makes a secret (``ConvertTo-SecureString``,
``Get-Credential``, ``Read-Host``, ``Get-Secret``): code, whose argument the
``powershell-securestring`` rule judges, not a password."""
_ENVIRONMENT_PROPERTY = re.compile(
    rb"(?:process|import\.meta)\.env\.[A-Za-z_][A-Za-z0-9_]*"
    rb"(?:[ \t]*(?:\|\||\?\?)[ \t]*(?:['\"`]|[A-Za-z_$][A-Za-z0-9_$]*[.(\[])[^\n]*)?"
)
"""``process.env.TOKEN``, alone or with a fallback that is a quoted literal or more code
(``|| "…"``, ``?? readSecret(…)``): a lookup read as a value by the key rules, whose
literal fallback is the ``lookup-fallback`` rule's (:mod:`redactors.catalog.lookups`). A
bare word after ``||`` (``token: process.env.X || hunter2``) is no code a reader can tell,
so that value is still taken whole."""


def is_code_reference(value: bytes, after: bytes) -> bool:
    """``get_secret_key()``, ``request.headers["apikey"]``, ``new Credentials(...)``: code that
    fetches a secret, not the secret (detect-secrets' indirect-reference filter).

    ``after`` is the text right after the value.
    """
    if value in CODE_WORDS and after[:1] == b" ":
        return True
    if _SECRET_CMDLET.fullmatch(value) and after[:1] in (b" ", b"", b"\r", b"\n", b")"):
        return True  # $pw = ConvertTo-SecureString "..." -AsPlainText, Get-Credential
    if _ENVIRONMENT_PROPERTY.fullmatch(value):
        return True  # process.env.TOKEN || "...": the fallback alone is a secret, not the lookup
    found = _IDENTIFIER_CALL_RE.match(value)
    if found is None:
        return False
    rest = value[found.end() :]
    if rest == b"[" and after[:1] in _QUOTES:
        return True  # request.headers["apikey"], ENV['API_KEY'], $_SERVER["DB_PASS"]: a lookup
    if not re.search(rb"[a-z][a-z_]{2}", value[: found.end()]):
        return False  # code names have lower-case words ("A000AAA(" is a password)
    if not rest:
        return after[:1] in (b"(", b"[")
    if rest.startswith(b"(") and rest.endswith(b")"):
        return True  # get_secret_key(), os.getenv(NAME)
    if rest == b"(" and after[:1] in _QUOTES:
        return True  # os.environ.get("DB_PASSWORD"): a call whose argument names the secret
    return _SYMBOL_INDEX.fullmatch(rest) is not None and after[:1] == b"]"  # params[:token]


_QUOTES = (b'"', b"'")
_SYMBOL_INDEX = re.compile(rb"\[:[A-Za-z_][A-Za-z0-9_]*")


_WORDY_RE = re.compile(
    rb"[A-Za-z]+(?:[_.\- ][A-Za-z]+)*|[A-Z]?[a-z]+(?:[A-Z][a-z]+)*|[A-Z]+(?:[_-][A-Z]+)*"
)
_PATH_RE = re.compile(rb"(?:/|~/|\.\.?/)[A-Za-z0-9_./-]*")


def looks_secret(value: bytes) -> bool:
    """Whether a value redacted at one place may be hunted down everywhere else.

    Literal propagation replaces a learned value wherever it occurs, also as a
    bare word; a word that only happened to stand after a secret-ish key
    (``auth-cache.db: database disk image is malformed``) would then be cut out
    of every member, JSON keys included. So only values with the shape of a
    secret are propagated: digits *and* letters, symbols, or a long run of
    random-looking letters; never a dictionary word, an identifier
    (``database_ok``, ``my-bot-token``), a number, a path, a template or a
    placeholder. Such values are still redacted where a rule found them.
    """
    if type(value) is bytes and len(value) <= CACHED_MAX:
        return _cached_looks_secret(value)
    return _looks_secret(value)


@lru_cache(maxsize=8192)
def _cached_looks_secret(value: bytes) -> bool:
    return _looks_secret(value)


def _looks_secret(value: bytes) -> bool:
    value = value.strip()
    if len(value) < 4 or is_placeholder(value):
        return False
    if value.isdigit() or _PATH_RE.fullmatch(value):
        return False
    if _WORDY_RE.fullmatch(value):
        letters = value.replace(b"_", b"").replace(b"-", b"").replace(b".", b"")
        # a long run of mixed-case letters with no word shape is random ("qXzRtWbVnMkLpJhG")
        upper = sum(1 for c in letters if 65 <= c <= 90)
        return (
            len(letters) >= 16
            and 0.25 <= upper / len(letters) <= 0.75
            and not (re.fullmatch(rb"(?:[A-Z][a-z]+)+", letters))
        )
    return True


WEAK_KINDS = frozenset({"auth", "credential", "session-token", "cookie", "secret-key"})
"""Kinds whose key words are also ordinary words (``auth: database``, ``session: closed``):
their value must not be a plain word."""


def plain_word(value: bytes) -> bool:
    """A short dictionary-like word (``database``, ``Closed``)."""
    return value.isalpha() and len(value) <= 12 and (value.islower() or value.istitle())


_GENERATED_RE = re.compile(rb"[A-Za-z0-9+/_-]{20,512}={0,2}")
_UUID_RE = re.compile(
    rb"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
)
_URLSAFE = bytes.maketrans(b"-_", b"+/")
_HEX_DIGITS = b"0123456789abcdefABCDEF"
_LOWER = bytes(range(97, 123))
_UPPER = bytes(range(65, 91))
_DIGITS = b"0123456789"
_PRINTABLE_TEXT = bytes(range(32, 127)) + b"\t\n\r"
BARE_KEY_NAMES = frozenset({"key", "value"})
"""Names too common to mark a secret alone (a cache key, a sort key, a label value), whose
value is still one when it is a generated key: Ceph ``{"entity": "osd.0", "key": "AQ..=="}``."""


def encoded_json(value: bytes) -> bool:
    """``value`` is base64 (standard or URL-safe) of a printable JSON object: ``eyJ...``.

    Such a run is encoded *text* (a pagination cursor, ``{"offset": 20150, ...}``), not
    random key material, so it is never a generated key by its shape; whether it *holds*
    a secret is for the decoders, which decode every ``eyJ`` run and rescan it (and then
    replace the whole run). Learning every cursor as a secret instead over-redacted them
    and made pass two look for each one in every member.
    """
    try:
        decoded = base64.b64decode(value.translate(_URLSAFE) + b"=" * (-len(value) % 4))
    except (binascii.Error, ValueError):
        return False
    text = decoded.rstrip()
    return (
        text.startswith(b'{"') and text.endswith(b"}") and not text.translate(None, _PRINTABLE_TEXT)
    )


def names_a_secret_id(key: str, value: bytes) -> bool:
    """Whether ``value`` under a ``secret_id`` key is the name of a stored secret rather than a
    credential: HashiCorp's SecretID (Consul, Nomad, a Vault AppRole) is a UUID or a generated
    token, while AWS's ``--secret-id`` takes the secret's name or ARN (``prod/etl/db``),
    which says which secret was read and is evidence."""
    words = key_words(key)
    if words[-2:] != ("secret", "id"):
        return False
    return not (_UUID_RE.fullmatch(value) or generated_secret(value))


def generated_secret(value: bytes) -> bool:
    """A machine-generated key: 20+ base64/url-safe characters, upper and lower case and
    digits (or base64 padding), random-looking; not a hex digest, UUID or identifier."""
    from .entropy import at_least

    if not _GENERATED_RE.fullmatch(value) or _UUID_RE.fullmatch(value):
        return False
    if value.startswith(b"eyJ") and encoded_json(value):
        return False  # a pagination cursor: the decoders rescan what it holds
    body = value.rstrip(b"=")
    if not body.translate(None, _HEX_DIGITS):
        return False  # digests and ids: evidence
    size = len(body)  # each class present when deleting it shortens the body (counted in C)
    classes = (
        (len(body.translate(None, _LOWER)) < size)
        + (len(body.translate(None, _UPPER)) < size)
        + (len(body.translate(None, _DIGITS)) < size)
    )
    padded = value.endswith(b"=") and len(value) % 4 == 0
    return (classes == 3 or (padded and classes >= 2)) and at_least(body, 3.5)
