"""Custom rule files (``--rules FILE``, YAML or TOML), written by people: validated strictly.

Example (YAML)::

    version: 1
    rules:
      - id: acme-license
        kind: license-key
        regex: 'ACME-[A-Z0-9]{16}'
        files: ['**/*.log']           # optional: only these members
      - id: org-name
        literals: ['Acme Corp', 'acme-prod']
      - id: acme-keys
        key_names: ['internal_ref', 'x-acme-signature']
    allow:
      values: ['AKIAIOSFODNN7EXAMPLE']     # never redacted
      regexes: ['test-[0-9]+']
    drop: ['**/*.pcap']                    # members left out of the bundle
    keywords: ['project-falcon']

A regex with a group named ``secret`` (or exactly one group) redacts only that
group. Every error is one line naming the rule. Member-name globs are
:mod:`fnmatch` patterns (``*`` also crosses ``/``), and ``**/`` also matches no
folder at all, as in ``.gitignore``: ``**/*.log`` is a top-level ``app.log`` too.
"""

from __future__ import annotations

import fnmatch
import hashlib
import re
import tomllib
from pathlib import Path
from typing import Literal

from pydantic import Field, ValidationError, field_validator, model_validator

from schemas import InputModel

from .catalog.keyvalue import _kv_hits
from .engine import Allowlist
from .errors import RulesError
from .rules import Hit, Rule, View


class RuleSpec(InputModel):
    id: str = Field(
        pattern=r"^[a-z0-9][a-z0-9-]{0,39}$", description="Rule id (token kind if no kind)."
    )
    kind: str | None = Field(default=None, pattern=r"^[a-z0-9][a-z0-9-]{0,39}$")
    description: str | None = None
    regex: str | None = None
    literals: list[str] = Field(default_factory=list)
    key_names: list[str] = Field(default_factory=list)
    ignore_case: bool = False
    files: list[str] = Field(default_factory=list, description="Member-name globs; empty = all.")

    @model_validator(mode="after")
    def _one_kind_of_matcher(self) -> RuleSpec:
        given = sum(bool(x) for x in (self.regex, self.literals, self.key_names))
        if given != 1:
            raise ValueError("give exactly one of regex, literals, key_names")
        if self.literals and any(len(v) < 4 for v in self.literals):
            raise ValueError(
                "literals must be at least 4 characters (shorter ones match everywhere)"
            )
        return self

    @field_validator("regex")
    @classmethod
    def _compiles(cls, value: str | None) -> str | None:
        if value is None:
            return value
        try:
            compiled = re.compile(value)
        except re.error as exc:
            raise ValueError(f"regex does not compile: {exc}") from None
        if compiled.match(""):
            raise ValueError("regex matches the empty string")
        return value


class AllowSpec(InputModel):
    values: list[str] = Field(default_factory=list)
    regexes: list[str] = Field(default_factory=list)


class RulesFile(InputModel):
    version: Literal[1] = 1
    rules: list[RuleSpec] = Field(default_factory=list)
    allow: AllowSpec = Field(default_factory=AllowSpec)
    drop: list[str] = Field(default_factory=list, description="Member-name globs left out.")
    keywords: list[str] = Field(default_factory=list)


class CustomRules:
    """A loaded rule file turned into engine rules, literals, key names and an allowlist."""

    def __init__(self, spec: RulesFile, sha256: str) -> None:
        self.spec = spec
        self.sha256 = sha256
        self.rules: list[Rule] = []
        self.literals: list[tuple[bytes, str]] = []
        self.key_names: set[str] = set()
        self._files: dict[str, list[re.Pattern[str]]] = {}
        self._drop = [_member_glob(glob) for glob in spec.drop]
        for item in spec.rules:
            kind = item.kind or item.id
            if item.files:
                self._files[f"custom-{item.id}"] = [_member_glob(glob) for glob in item.files]
            if item.regex:
                self.rules.append(_regex_rule(item, kind))
            for literal in item.literals:
                pattern = re.escape(literal.lower() if item.ignore_case else literal).encode()
                self.rules.append(
                    Rule(
                        f"custom-{item.id}",
                        kind,
                        "custom",
                        item.description or "custom literal",
                        pattern,
                        lower=item.ignore_case,
                        source="custom",
                    )
                )
                self.literals.append((literal.encode(), kind))
            for key in item.key_names:
                self.key_names.add(key.lower())
                self.rules.append(_key_rule(item, key, kind))
        self.allowlist = Allowlist(
            [v.encode() for v in spec.allow.values],
            [re.compile(r.encode()) for r in spec.allow.regexes],
        )
        self.keywords = tuple(spec.keywords)
        self.scoped = bool(self._files)

    def applies(self, rule_id: str, member: str) -> bool:
        globs = self._files.get(rule_id)
        return not globs or any(glob.match(member) for glob in globs)

    def dropped(self, member: str) -> bool:
        return any(glob.match(member) for glob in self._drop)


_ANY_FOLDERS = "\x00"
"""Stands for a ``**/`` path component while :func:`fnmatch.translate` runs (no member name
holds a NUL)."""


def _member_glob(glob: str) -> re.Pattern[str]:
    """A member-name glob as :func:`fnmatch.fnmatchcase` reads it, but with ``**/`` matching
    any number of folders, none included: the usual reading of ``**/*.log`` ("every log"),
    which plain fnmatch gives only to logs inside a folder, so a top-level ``app.log``
    would silently escape a rule scoped to it (and a top-level capture a ``drop``)."""
    if _ANY_FOLDERS in glob:
        return re.compile(fnmatch.translate(glob))
    marked = re.sub(r"(?:^|(?<=/))\*\*/", _ANY_FOLDERS, glob)  # a whole path component
    return re.compile(fnmatch.translate(marked).replace(_ANY_FOLDERS, "(?:.*/)?"))


def _regex_rule(item: RuleSpec, kind: str) -> Rule:
    assert item.regex is not None
    flags = re.IGNORECASE if item.ignore_case else 0
    compiled = re.compile(item.regex.encode(), flags)
    group = "secret" if "secret" in compiled.groupindex else (1 if compiled.groups == 1 else 0)
    index = compiled.groupindex["secret"] if group == "secret" else int(group)
    return Rule(
        f"custom-{item.id}",
        kind,
        "custom",
        item.description or "custom regex",
        item.regex.encode(),
        group=index,
        source="custom",
        flags=flags,
    )


def _key_rule(item: RuleSpec, key: str, kind: str) -> Rule:
    key_lower = key.lower().encode()

    def handler(view: View, match: re.Match[bytes], rule: Rule):  # type: ignore[no-untyped-def]
        start = match.start()
        if start > 0 and view.low[start - 1 : start].isalnum():
            return
        yield from (
            Hit(h.start, h.end, kind, rule.id)
            for h in _kv_hits(
                view, start, match.end("k"), match.end(), rule, classify=lambda _k: kind
            )
        )

    pattern = re.escape(key_lower) + rb"(?P<k>)(?:\\*[\"'])?[ \t]{0,4}(?:=>|:=|[:=])"
    return Rule(
        f"custom-{item.id}",
        kind,
        "custom",
        item.description or f"value of key {key}",
        pattern,
        lower=True,
        handler=handler,
        source="custom",
    )


def load_rules(path: Path) -> CustomRules:
    """Load and validate a rule file; raises :class:`RulesError` with a one-line message."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise RulesError(f"cannot read rule file {path}: {exc.strerror}") from None
    import yaml  # here: a run without a rule file does not load PyYAML (~10 ms of start-up)

    try:
        if path.suffix.lower() == ".toml":
            data = tomllib.loads(raw.decode("utf-8"))
        else:
            data = yaml.safe_load(raw)
    except (tomllib.TOMLDecodeError, yaml.YAMLError, UnicodeDecodeError) as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise RulesError(
            f"rule file {path} is not valid {path.suffix.lstrip('.') or 'YAML'}: {first}"
        ) from None
    if not isinstance(data, dict):
        raise RulesError(f"rule file {path}: expected a mapping with 'rules'")
    try:
        spec = RulesFile.model_validate(data)
    except ValidationError as exc:
        error = exc.errors()[0]
        where = ".".join(str(p) for p in error["loc"])
        rules = data.get("rules")
        if error["loc"][:1] == ("rules",) and len(error["loc"]) > 1 and isinstance(rules, list):
            index = error["loc"][1]
            if isinstance(index, int) and index < len(rules) and isinstance(rules[index], dict):
                where = f"rule '{rules[index].get('id', index)}' ({where})"
        raise RulesError(f"rule file {path}: {where}: {error['msg']}") from None
    return CustomRules(spec, hashlib.sha256(raw).hexdigest())
