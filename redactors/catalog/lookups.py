"""The fallback a secret's lookup gives when the variable is unset: a secret in clear.

``DB_PASSWORD = os.environ.get("DB_PASSWORD", "s3cr3t-dev")`` reads the password from
the environment, and the key rules rightly take the lookup for code, not a value
(:func:`~redactors.keys.is_code_reference`); but its second argument is the password a
deployment gets when nobody set one, often the production one. Django and Flask settings,
Rails initializers, Node configs and Compose files are full of these. The lookup names
the secret (``DB_PASSWORD``), so a literal fallback beside that name is taken as its
value, in the forms these languages write it:

* a call: ``os.getenv("X", "d")``, ``os.environ.get('X', 'd')``, ``ENV.fetch("X", "d")``,
  ``env("X", default="d")`` (django-environ), ``config('X', default='d')`` (decouple);
* JavaScript: ``process.env.X || "d"`` and ``?? "d"``;
* the shell and Compose: ``${X:-d}``, ``${X-d}``, ``${X:=d}``.

A fallback that is itself a lookup (``${X:-$Y}``), empty, or a placeholder stays.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ..keys import is_placeholder, secret_kind
from ..rules import Hit, Rule, View

_NAME = rb"[A-Za-z_][A-Za-z0-9_.]{0,127}"


def _fallback(view: View, match: re.Match[bytes], rule: Rule) -> Iterable[Hit]:
    """The fallback of a lookup whose name is a secret's (the groups of the branch that
    matched: ``c`` a call, ``j`` JavaScript, ``s`` the shell)."""
    branch = next(b for b in "cjs" if match.group(f"{b}name") is not None)
    kind = secret_kind(match.group(f"{branch}name").decode("ascii"))
    if kind is None:
        return
    start, end = match.span(f"{branch}value")
    value = view.data[start:end]
    if not value.strip() or value.startswith(b"$") or is_placeholder(value):
        return
    yield Hit(start, end, kind, rule.id)


LOOKUP_FALLBACK = Rule(
    "lookup-fallback",
    "password",
    "key-value",
    'The literal fallback of a lookup that names a secret: `os.getenv("DB_PASSWORD",'
    ' "<value>")`, `ENV.fetch(...)`, `config(..., default=...)`, `process.env.X ||'
    ' "<value>"`, `${DB_PASSWORD:-<value>}`.',
    rb"(?:(?:getenv|environ\.get|\.fetch|env|env\.str|config)\(\s*(?P<q>['\"])(?P<cname>"
    + _NAME
    + rb")(?P=q)\s*,\s*(?:default\s*=\s*)?(?P<dq>['\"])(?P<cvalue>[^'\"\n\\]{1,256})(?P=dq)"
    rb"|process\.env\.(?P<jname>" + _NAME + rb")\s*(?:\|\||\?\?)\s*(?P<jq>['\"`])"
    rb"(?P<jvalue>[^'\"`\n\\]{1,256})(?P=jq)"
    rb"|\$\{(?P<sname>[A-Za-z_][A-Za-z0-9_]{0,127}):?[-=](?P<svalue>[^}\s'\"]{1,256})\})",
    handler=_fallback,
    examples=(
        ('DB_PASSWORD = os.environ.get("DB_PASSWORD", "Dev-Fallback-1")', "Dev-Fallback-1"),
        ("SECRET_KEY = os.getenv('SECRET_KEY', 'dj4ng0-Fallback-2')", "dj4ng0-Fallback-2"),
        ('api_key = ENV.fetch("API_KEY", "Rb-Fallback-3")', "Rb-Fallback-3"),
        ("PASSWORD = config('DB_PASSWORD', default='Dc-Fallback-4')", "Dc-Fallback-4"),
        ('const token = process.env.AUTH_TOKEN || "Js-Fallback-5";', "Js-Fallback-5"),
        ("      POSTGRES_PASSWORD: ${POSTGRES_PASSWORD:-Cmp-Fallback-6}", "Cmp-Fallback-6"),
    ),
    decoys=(
        'DEBUG = os.environ.get("DEBUG", "false")',
        'HOST = os.getenv("DB_HOST", "localhost")',
        "PASSWORD = os.environ.get('DB_PASSWORD', '')",
        "POSTGRES_PASSWORD: ${POSTGRES_PASSWORD:-$DEFAULT_PASSWORD}",
        "url: ${DATABASE_URL:-sqlite:///db}",
        'module.exports = { user: process.env.DB_USER || "app" };',
    ),
)
