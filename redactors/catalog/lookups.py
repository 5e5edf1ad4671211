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
* a call and an operator or a block after it: Python's ``os.environ.get("X") or "d"``,
  Ruby's ``ENV.fetch("X") { "d" }`` and ``ENV.fetch("X") do "d" end``, PHP's
  ``getenv('X') ?: 'd'``, ``|| "d"`` and ``?? "d"``;
* Ruby's ``ENV["X"] || "d"``;
* JavaScript: ``process.env.X || "d"``, ``?? "d"``, also ``process.env["X"]`` and Vite's
  ``import.meta.env.X``;
* the shell and Compose: ``${X:-d}``, ``${X-d}``, ``${X:=d}``.

The name the lookup reads says what the fallback is; where it does not
(``password = os.getenv("PGPASS_FILE_VAR", "d")``), the key it is assigned to does. The
lookup itself is code, which the key rules keep (:func:`~redactors.keys.is_code_reference`):
only the literal goes. A fallback that is itself a lookup (``${X:-$Y}``), empty, or a
placeholder stays.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ..keys import is_placeholder, secret_kind
from ..rules import Hit, Rule, View

_NAME = rb"[A-Za-z_][A-Za-z0-9_.]{0,127}"


_ASSIGNED_TO = re.compile(
    rb"(?P<key>[A-Za-z_][A-Za-z0-9_-]{0,127})[\"']?[ \t]*(?::=|=>|(?<![=!<>])=|:)[ \t]*"
    rb"(?:await[ \t]+)?[A-Za-z0-9_.]*\Z"
)
"""What a lookup is assigned to, read back from the lookup: ``password = os.``,
``"token": process``, ``api_key => ENV``; not a comparison (``==``, ``!=``)."""
_BRANCHES = "cjrs"


def _assigned_kind(data: bytes, start: int) -> str | None:
    """The secret kind of the key the lookup starting at ``start`` is assigned to, if any."""
    line_start = max(data.rfind(b"\n", 0, start), data.rfind(b"\r", 0, start)) + 1
    found = _ASSIGNED_TO.search(data, max(line_start, start - 256), start)
    return None if found is None else secret_kind(found.group("key").decode("ascii"))


def _fallback(view: View, match: re.Match[bytes], rule: Rule) -> Iterable[Hit]:
    """The fallback of a lookup whose name, or the key it is assigned to, is a secret's (the
    groups of the branch that matched: ``c`` a call, ``j`` JavaScript, ``r`` Ruby's
    ``ENV[...]``, ``s`` the shell)."""
    branch = next(b for b in _BRANCHES if match.group(f"{b}name") is not None)
    kind = secret_kind(match.group(f"{branch}name").decode("ascii"))
    if kind is None and branch != "s":
        kind = _assigned_kind(view.data, match.start())
    if kind is None:
        return
    start, end = match.span(f"{branch}value")
    value = view.data[start:end]
    if not value.strip() or value.startswith(b"$") or is_placeholder(value):
        return
    yield Hit(start, end, kind, rule.id)


_OR = rb"(?:[ \t]*(?:\|\||\?\?)[ \t]*|[ \t]+or[ \t]+)"
"""A fallback operator: ``||``, ``??`` and Python's and Ruby's ``or``."""
_AFTER_CALL = rb"(?:" + _OR + rb"|[ \t]*(?:\?:|\{)[ \t]*|[ \t]+do[ \t]+)"
"""After a call: also PHP's ``?:`` and a Ruby block (``{ "d" }``, ``do "d" end``)."""


LOOKUP_FALLBACK = Rule(
    "lookup-fallback",
    "password",
    "key-value",
    "The literal fallback of a lookup that names a secret (or is assigned to a secret's"
    ' key): `os.getenv("DB_PASSWORD", "<value>")`, `... or "<value>"`, `ENV.fetch(...)`'
    ' and its `{ "<value>" }` block, `config(..., default=...)`, `process.env.X ||'
    ' "<value>"`, `${DB_PASSWORD:-<value>}`.',
    rb"(?:(?:getenv|environ\.get|\.fetch|env|env\.str|config)\(\s*(?P<q>['\"])(?P<cname>"
    + _NAME
    + rb")(?P=q)(?:\s*,\s*(?:default\s*=\s*)?|\s*\)"
    + _AFTER_CALL
    + rb")(?P<dq>['\"])(?P<cvalue>[^'\"\n\\]{1,256})(?P=dq)"
    rb"|(?:process|import\.meta)\.env(?:\.|\[['\"])(?P<jname>"
    + _NAME
    + rb")(?:['\"]\])?"
    + _OR
    + rb"(?P<jq>['\"`])(?P<jvalue>[^'\"`\n\\]{1,256})(?P=jq)"
    rb"|ENV\[['\"](?P<rname>"
    + _NAME
    + rb")['\"]\]"
    + _OR
    + rb"(?P<rvq>['\"])(?P<rvalue>[^'\"\n\\]{1,256})(?P=rvq)"
    rb"|\$\{(?P<sname>[A-Za-z_][A-Za-z0-9_]{0,127}):?[-=](?P<svalue>[^}\s'\"]{1,256})\})",
    handler=_fallback,
    examples=(
        ('DB_PASSWORD = os.environ.get("DB_PASSWORD", "Dev-Fallback-1")', "Dev-Fallback-1"),
        ("SECRET_KEY = os.getenv('SECRET_KEY', 'dj4ng0-Fallback-2')", "dj4ng0-Fallback-2"),
        ('api_key = ENV.fetch("API_KEY", "Rb-Fallback-3")', "Rb-Fallback-3"),
        ("PASSWORD = config('DB_PASSWORD', default='Dc-Fallback-4')", "Dc-Fallback-4"),
        ('const token = process.env.AUTH_TOKEN || "Js-Fallback-5";', "Js-Fallback-5"),
        ("      POSTGRES_PASSWORD: ${POSTGRES_PASSWORD:-Cmp-Fallback-6}", "Cmp-Fallback-6"),
        ('db_password = ENV.fetch("DB_PASSWORD") { "Rb-Block-7" }', "Rb-Block-7"),
        ('PASSWORD = os.environ.get("DB_PASSWORD") or "Py-Or-8"', "Py-Or-8"),
        ('password = ENV["DB_PASSWORD"] || "Rb-Or-9"', "Rb-Or-9"),
    ),
    decoys=(
        'DEBUG = os.environ.get("DEBUG", "false")',
        'HOST = os.getenv("DB_HOST", "localhost")',
        "PASSWORD = os.environ.get('DB_PASSWORD', '')",
        "POSTGRES_PASSWORD: ${POSTGRES_PASSWORD:-$DEFAULT_PASSWORD}",
        "url: ${DATABASE_URL:-sqlite:///db}",
        'module.exports = { user: process.env.DB_USER || "app" };',
        'HOST = os.environ.get("DB_HOST") or "localhost"',
        'pool = ENV.fetch("DB_POOL") { "5" }',
        'if password == os.getenv("PG_VAR", "dev-default"):',
    ),
)
