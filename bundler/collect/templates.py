"""Rendering plan templates safely: missing variables skip a step, names never leak values.

Plan templates are ``str.format`` strings with plain field names only
(``{name}``, never ``{name.attr}`` or ``{name[0]}``). Values are substituted,
never re-interpreted, so a value containing braces or shell syntax stays
inert; shell quoting is the transport's job (``shlex.quote``), URL quoting
is :func:`quote_path_value`'s.

Member names are visible without the bundle password, so their templates may
use only variables that carry no value from the target: :data:`MEMBER_FIELDS`.
"""

from __future__ import annotations

import string
from collections.abc import Iterable, Mapping
from urllib.parse import quote

from ..plurals import plural
from .errors import Skip

MEMBER_FIELDS = frozenset({"alias", "index", "log_index", "role"})
"""Variables a member-name template may use: aliases, indexes and the role enum."""

_FORMATTER = string.Formatter()


class TemplateError(ValueError):
    """A template is malformed or uses a variable it may not use (a bug in a plan)."""


def fields(template: str) -> list[str]:
    """Field names used by ``template``, in order (``TemplateError`` if malformed)."""
    try:
        parsed = list(_FORMATTER.parse(template))
    except ValueError as exc:
        raise TemplateError(f"malformed template {template!r}: {exc}") from exc
    names = []
    for _, name, spec, conversion in parsed:
        if name is None:
            continue
        if not name.isidentifier() or spec or conversion:
            raise TemplateError(f"template {template!r}: only plain {{name}} fields are allowed")
        names.append(name)
    return names


def render(template: str, variables: Mapping[str, str], *, what: str = "template") -> str:
    """Substitute ``variables``; a missing one raises :class:`Skip` naming it."""
    missing = [name for name in fields(template) if name not in variables]
    if missing:
        names = sorted(set(missing))
        needs = f"{plural(len(names), 'variable')} {', '.join(names)}"
        raise Skip(f"{what} needs {needs} this host lacks")
    return template.format_map(dict(variables))


def render_all(templates: Iterable[str], variables: Mapping[str, str], *, what: str) -> list[str]:
    return [render(t, variables, what=what) for t in templates]


def check_member_template(template: str) -> None:
    """Raise ``TemplateError`` if a member template could put a target's value in a name."""
    leaking = sorted(set(fields(template)) - MEMBER_FIELDS)
    if leaking:
        raise TemplateError(
            f"member template {template!r} uses {', '.join(leaking)}: member names may only use "
            f"{', '.join(sorted(MEMBER_FIELDS))} (names are visible without the password)"
        )


def render_member(template: str, variables: Mapping[str, str]) -> str:
    """A member name: only :data:`MEMBER_FIELDS` are offered to the template."""
    check_member_template(template)
    return render(template, {k: v for k, v in variables.items() if k in MEMBER_FIELDS})


def quote_path_value(value: str) -> str:
    """Percent-encode a value for one URL path segment: '/', '?', '#', '..' stay inert."""
    encoded = quote(value, safe="")
    return encoded.replace(".", "%2E") if encoded in (".", "..") else encoded
