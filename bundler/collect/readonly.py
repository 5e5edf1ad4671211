"""The read-only guard: what the engine is allowed to run and request, checked twice.

``doctor`` runs on customers' production fleets, so it must never change
anything. Plans are data, so this is checked *statically* for every
registered profile by a test (:func:`plan_violations`), and again *at run
time* on every rendered command and path, where values from inventories
and fan-outs are known (:func:`command_violation`, :func:`path_violation`).

* HTTP: only GET exists in a plan; no path may match a profile's
  ``mutating_routes`` (templates like ``/workers/{name}/connect``; a trailing
  ``*`` matches any rest), and fan-out values are percent-encoded so they can
  never form a path of their own.
* Commands: the program must be on the allow-list below, with read-only
  arguments; no shell operators (argv is quoted, but intent matters); no
  program that runs other programs (sh, env, sudo, xargs, timeout...).
  Product CLIs are allowed only through explicit subcommand lists a profile
  declares (``Profile.read_only_commands``, optional), never for a built-in
  or denied name.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from .plan import CommandStep, HttpStep, Plan
from .profile import EngineProfile
from .templates import TemplateError, check_member_template, fields

ArgCheck = Callable[[list[str]], str | None]


@dataclass(frozen=True)
class ProgramRule:
    """Which invocations of one program are read-only.

    ``subcommands``: allowed leading positional words (prefixes), or None for
    any. ``forbidden``: options refused anywhere (``--opt`` also refuses
    ``--opt=...``). ``required``: options that must be present.
    """

    subcommands: tuple[tuple[str, ...], ...] | None = None
    forbidden: frozenset[str] = field(default_factory=frozenset)
    required: frozenset[str] = field(default_factory=frozenset)
    check: ArgCheck | None = None

    def violation(self, args: list[str]) -> str | None:
        for arg in args:
            name = arg.split("=", 1)[0]
            if name in self.forbidden:
                return f"option {name} is not read-only"
        missing = sorted(self.required - set(args))
        if missing:
            return f"requires {', '.join(missing)}"
        if self.subcommands is not None:
            words = tuple(a for a in args if not a.startswith("-"))
            if not any(words[: len(sub)] == sub for sub in self.subcommands):
                shown = " ".join(words[:2]) or "(none)"
                return f"subcommand {shown!r} is not on its read-only list"
        return self.check(args) if self.check else None


def _no_positionals(args: list[str]) -> str | None:
    return "takes no operands here" if any(not a.startswith("-") for a in args) else None


def _date_args(args: list[str]) -> str | None:
    if any(not a.startswith(("-", "+")) for a in args):
        return "operands would set the clock"
    return None


_IP_OBJECTS = {"addr", "address", "a", "link", "l", "route", "r", "neigh", "n", "rule"}


def _ip_args(args: list[str]) -> str | None:
    words = [a for a in args if not a.startswith("-")]
    if not words or words[0] not in _IP_OBJECTS:
        return "only ip addr|link|route|neigh|rule [show|list] are read-only"
    if len(words) > 1 and words[1] not in {"show", "list", "ls", "get"}:
        return f"ip {words[0]} {words[1]} is not read-only"
    return None


_SQL_FORBIDDEN = re.compile(r"\b(vacuum|attach|detach|load_extension|writefile|edit)\b|;\s*\S")


def _sqlite_args(args: list[str]) -> str | None:
    operands = [a for a in args if not a.startswith("-")]
    for sql in operands[1:]:  # operands[0] is the database file
        text = sql.strip().lower()
        if text.startswith("."):
            return "sqlite3 dot-commands are refused (.shell, .output ... can act)"
        if not text.startswith(("select", "with", "pragma")):
            return "only SELECT, WITH and PRAGMA queries are read-only"
        if _SQL_FORBIDDEN.search(text) or (text.startswith("pragma") and "=" in text):
            return "query can write (VACUUM INTO, ATTACH, writefile, pragma assignment, ...)"
    return None


# fmt: off
_PLAIN_READERS = (
    "cat", "head", "ls", "stat", "wc", "du", "df", "uname", "id", "whoami", "uptime", "nproc",
    "free", "getconf", "ps", "lsblk", "findmnt", "ss", "grep", "sha256sum", "md5sum", "file",
    "readlink", "realpath", "dpkg-query", "timedatectl", "chronyc",
)
_SYSTEMCTL_READS = (
    "status", "is-active", "is-enabled", "is-failed", "show", "list-units", "list-unit-files",
    "list-timers", "cat",
)
# fmt: on

BUILTIN_RULES: Mapping[str, ProgramRule] = {
    **{name: ProgramRule() for name in _PLAIN_READERS},
    "tail": ProgramRule(forbidden=frozenset({"-f", "-F", "--follow", "--retry"})),
    "hostname": ProgramRule(check=_no_positionals),
    "date": ProgramRule(forbidden=frozenset({"-s", "--set"}), check=_date_args),
    "ip": ProgramRule(forbidden=frozenset({"-batch", "-b", "-force"}), check=_ip_args),
    "find": ProgramRule(
        forbidden=frozenset(
            {"-delete", "-exec", "-execdir", "-ok", "-okdir", "-fprint", "-fprint0", "-fprintf"}
            | {"-fls"}
        )
    ),
    "journalctl": ProgramRule(
        forbidden=frozenset(
            {"--vacuum-size", "--vacuum-time", "--vacuum-files", "--rotate", "--flush", "--sync"}
            | {"--relinquish-var", "--smart-relinquish-var", "--setup-keys", "--update-catalog"}
            | {"-f", "--follow", "--edit"}
        )
    ),
    "systemctl": ProgramRule(subcommands=tuple((s,) for s in _SYSTEMCTL_READS)),
    "sqlite3": ProgramRule(
        forbidden=frozenset({"-cmd", "-init", "-interactive", "-safe-off"}),
        required=frozenset({"-readonly"}),
        check=_sqlite_args,
    ),
}

DENIED_PROGRAMS = frozenset(
    {"sh", "bash", "dash", "zsh", "ksh", "env", "sudo", "su", "doas", "xargs", "timeout", "nice"}
    | {"nohup", "rm", "mv", "cp", "dd", "tee", "truncate", "chmod", "chown", "kill", "pkill"}
    | {"killall", "reboot", "shutdown", "mount", "umount", "python", "python3", "perl", "ssh"}
)
"""Programs no rule may allow: they run other programs or only exist to change things."""

_SHELL_OPERATOR = re.compile(r"^(\d*[<>]{1,2}(&\d*)?|[|&;]{1,2}|\$\(.*|`.*)$")


def profile_rules(profile: EngineProfile | None) -> Mapping[str, ProgramRule]:
    """A profile's declared product-CLI rules (optional attribute ``read_only_commands``)."""
    rules: Mapping[str, ProgramRule] = getattr(profile, "read_only_commands", None) or {}
    return rules


def command_violation(
    argv: Sequence[str], extra: Mapping[str, ProgramRule] | None = None
) -> str | None:
    """Why ``argv`` is not a read-only command, or None if it is."""
    extra = extra or {}
    if not argv or not argv[0]:
        return "empty command"
    program = argv[0].rsplit("/", 1)[-1]
    args = list(argv[1:])
    for arg in args:
        if _SHELL_OPERATOR.match(arg):
            return f"shell operator {arg!r} in argv (commands never go through a shell)"
    if program in DENIED_PROGRAMS:
        return f"program {program!r} is never allowed (it runs or changes things)"
    rule = BUILTIN_RULES.get(program)
    if rule is None:
        declared = extra.get(program)
        if declared is None:
            return f"program {program!r} is not on the read-only allow-list"
        if declared.subcommands is None:
            return f"profile rule for {program!r} must list its read-only subcommands"
        rule = declared
    reason = rule.violation(args)
    return f"{program}: {reason}" if reason else None


def route_pattern(route: str) -> re.Pattern[str]:
    """A route template as a regex: ``{x}`` is one path segment, a trailing ``*`` any rest.

    One rule for the read-only guard and for ``bundler serve``'s refused routes, so a route
    the collector would never request is exactly one the replay refuses.
    """
    wildcard = route.endswith("*")
    parts = re.split(r"\{[^}]*\}", route.rstrip("*"))
    body = "[^/]+".join(re.escape(p) for p in parts)
    return re.compile(f"^{body}{'.*' if wildcard else '/?'}$")


def path_violation(path: str, mutating_routes: Sequence[str]) -> str | None:
    """Why a (rendered or template) GET path is not safe, or None."""
    if not path.startswith("/") or "?" in path or "#" in path:
        return f"path {path!r} must be absolute with no query or fragment (use params)"
    if any(seg in (".", "..") for seg in path.split("/")):
        return f"path {path!r} contains a dot segment"
    probe = re.sub(r"\{[^}]*\}", "VALUE", path)
    for route in mutating_routes:
        if route_pattern(route).match(probe) or route_pattern(route).match(path):
            return f"path {path!r} matches mutating route {route!r}"
    return None


def plan_violations(plan: Plan, profile: EngineProfile | None = None) -> list[str]:
    """Every read-only or naming violation in a plan, statically (empty list = safe)."""
    routes: Sequence[str] = getattr(profile, "mutating_routes", ()) if profile else ()
    extra = profile_rules(profile) if profile else {}
    problems: list[str] = []
    for step in plan.steps:
        try:
            check_member_template(step.member)
        except TemplateError as exc:
            problems.append(f"{step.id}: {exc}")
        if isinstance(step, HttpStep):
            reason = path_violation(step.path, routes)
        elif isinstance(step, CommandStep):
            reason = _static_command_violation(step, extra)
        else:
            reason = None
        if reason:
            problems.append(f"{step.id}: {reason}")
    return problems


def _static_command_violation(step: CommandStep, extra: Mapping[str, ProgramRule]) -> str | None:
    program = step.argv[0].rsplit("/", 1)[-1]
    try:
        if fields(program):
            return f"program name {step.argv[0]!r} must end in a literal name"
        placeholders = [re.sub(r"\{[^}]*\}", "VALUE", a) for a in step.argv]
    except TemplateError as exc:
        return str(exc)
    return command_violation(placeholders, extra)
