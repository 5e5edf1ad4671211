"""Structure first: parse JSON/YAML/TOML and find secrets by key name, whatever their layout.

Line rules see ``password: |`` and a pretty-printed ``"name": "DB_PASSWORD",
"value": ...`` only by luck; a parser sees them always. The walk below finds
the secret *values* of a document: values under secret key names
(:func:`redactors.keys.secret_kind` or a custom key), the ``value`` of a
``name``/``value`` pair whose name is secret (Kubernetes env lists), every
value of a Kubernetes ``Secret``'s ``data`` (base64, decoded and learned
too, also when base64'd twice) and ``stringData``, and a Docker ``auth``
(base64 of ``user:password``).

The member's text is then redacted by replacing those values where they
occur (so formatting, comments and line numbers survive), and the line rules
run as well. :func:`redact_object` is the same policy for data already in
memory (collectors redact parsed API responses with it).
"""

from __future__ import annotations

import base64
import binascii
import dataclasses
import json
import re
import tomllib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from . import salvage, shallowjson
from .argv import argv_secrets
from .errors import NestedTooDeep
from .keys import (
    BARE_KEY_NAMES,
    WEAK_KINDS,
    generated_secret,
    is_placeholder,
    looks_secret,
    plain_word,
    secret_kind,
)
from .literals import LiteralSet
from .marked import flagged_value, terraform_secrets
from .walklimits import WALK_DEPTH, nested_too_deep

Classify = Callable[[str], str | None]
_B64 = re.compile(rb"[A-Za-z0-9+/]+={0,2}")


@dataclass(frozen=True)
class Found:
    kind: str
    value: bytes
    path: str
    quoted_in_json: bool = True
    extra: tuple[bytes, ...] = ()


def detect_format(name: str, media_type: str, head: bytes) -> str | None:
    lower = name.lower()
    if lower.endswith((".json", ".json.txt")) or media_type == "application/json":
        return "json"
    if lower.endswith((".yaml", ".yml")) or media_type in ("application/yaml", "text/yaml"):
        return "yaml"
    if lower.endswith(".toml"):
        return "toml"
    stripped = head.lstrip()
    if stripped[:1] in (b"{", b"[") and not lower.endswith((".log", ".jsonl", ".ndjson")):
        return "json"
    if stripped.startswith((b"apiVersion:", b"---\n", b"kind:")):
        return "yaml"
    return None


def parse(data: bytes, fmt: str) -> Iterable[Any] | None:
    """Documents of ``data``, or None if nothing of it parses (then line rules alone apply).

    JSON or YAML that does not parse whole (a truncated file, a broken document in
    a stream, one JSON value per line) gives what of it does (:mod:`.salvage`).
    For :func:`find_secrets`, a large document is read as the walk goes (iterate the
    documents once; their lists are not indexable): a JSON document's top-level lists
    are :class:`~.shallowjson.LazyList`, a YAML stream's documents come one at a time,
    a large document's top-level sequences as :class:`~.lazyyaml.LazySequence`.
    """
    try:
        if fmt == "json":
            # a large document's bulk is read item by item as the walk reaches it
            return [
                shallowjson.load(data) if len(data) >= shallowjson.MIN_BYTES else json.loads(data)
            ]
        if fmt == "toml":
            return [tomllib.loads(data.decode("utf-8"))]
        return _yaml_documents(data)
    except RecursionError:
        raise Unwalkable(nested_too_deep(fmt)) from None
    except (ValueError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return _salvaged(data, fmt)


class _YamlBroken(ValueError):
    """PyYAML's error as one :func:`parse` catches without importing PyYAML to name it."""


def _yaml_documents(data: bytes) -> Iterable[Any]:
    """A YAML member's documents. PyYAML is imported here, with the first YAML member: a
    run with none (a one-file ``bundler redact`` of a log) does not pay its ~10 ms."""
    import yaml

    from . import lazyyaml
    from .yamldocs import load_documents

    try:
        if len(data) >= lazyyaml.MIN_BYTES:  # each piece salvaged on its own, as it comes
            return lazyyaml.documents(data)
        return load_documents(data)  # an alias bomb is cheap to build: its parts are shared
    except yaml.YAMLError as error:
        raise _YamlBroken from error


def _salvaged(data: bytes, fmt: str) -> Iterable[Any] | None:
    try:
        if fmt == "json":
            if len(data) >= shallowjson.MIN_BYTES:
                try:
                    return shallowjson.salvaged(data)
                except ValueError:
                    pass  # it broke outside a top-level list: the whole text is salvaged
            documents = salvage.json_documents(data)
        elif fmt == "yaml":
            from .yamldocs import load_documents

            documents = salvage.yaml_documents(data, load_documents)
        else:
            return None
    except RecursionError:
        raise Unwalkable(nested_too_deep(fmt)) from None
    except (ValueError, UnicodeDecodeError):  # salvage.yaml_prefix takes PyYAML's errors
        return None
    return documents or None


class Unwalkable(Exception):
    """The walk cannot reach all of a document; the message says why (no name, no value)."""


@dataclass(frozen=True)
class StructureWalk:
    """What :func:`structure_walk` found in a member, and why it did not reach all of it."""

    literals: LiteralSet
    unwalked: str | None = None
    """Set when part of the document was not walked (nested too deep): what was found is
    still redacted, the report says so, and review rejects the member (:mod:`.walklimits`)."""


def structure_walk(data: bytes, fmt: str, classify: Classify = secret_kind) -> StructureWalk:
    """What the redactor replaces in a member because its parse found it under a secret key.

    Every value :func:`find_secrets` gives, and its extra forms (a ``Secret``'s data
    decoded), but a plain word under a weak key (``"auth": "database"``: a state, as for
    the line rules) and what :meth:`~.literals.LiteralSet.learn` never takes (a token, a
    short plain word). The redactor replaces these where they stand as values; review
    checks that none is left (:func:`~.review.review_source`): one rule, both sides.
    """
    local = LiteralSet()
    # a YAML container may be reached through several aliases: each walked once
    walk = _Walk(classify, walked={} if fmt == "yaml" and b"&" in data else None)
    unwalked = None
    try:
        for document in parse(data, fmt) or ():
            _walk(document, "", walk, 0)
    except RecursionError:  # deep in a large document, read as the walk went
        walk.too_deep = True
    except Unwalkable as why:
        unwalked = str(why)
    if walk.too_deep:
        unwalked = nested_too_deep(fmt)
    for found in walk.found:
        if found.kind in WEAK_KINDS and plain_word(found.value):
            continue
        if _BARE_TOKEN.fullmatch(found.value):
            continue  # a token written bare, which YAML reads as a list of its inside
        # in this member a value the parser found under a secret key is redacted
        # where it stands as a value, word-like or not; keys never are
        local.learn(found.value, found.kind, found.value, force=True)
        for form in found.extra:
            local.learn(form, found.kind, found.value)
    return StructureWalk(local, unwalked)


def value_spans(data: bytes, fmt: str, literals: LiteralSet) -> list[tuple[int, int, str, bytes]]:
    """Where ``literals`` (:func:`structure_walk`) stand as values in ``data``: what the
    redactor replaces, (start, end, kind, identity). Not where one is spelled as a key, and a
    short or word-like one only as a whole scalar (``"database"``, not ``database_ok``)."""
    return [
        (start, end, kind, identity)
        for start, end, kind, identity in literals.find(data)
        if not is_key_at(data, start, end, fmt)
        and (looks_secret(data[start:end]) or whole_scalar(data, start, end))
    ]


_SCALAR_OPEN = frozenset(b"\"' \t:,[-")
_SCALAR_CLOSE = frozenset(b"\"',]}\r\n\t #")


def whole_scalar(data: bytes, start: int, end: int) -> bool:
    """Whether the span is a whole value (``"database"``), not part of a word (``database_ok``),
    or a value glued to a one-letter option that opens the scalar (``"-pcorrecthorse"``: a
    command line written as a list, :mod:`.argv`)."""
    before = data[start - 1] if start > 0 else 0x20
    after = data[end] if end < len(data) else 0x0A
    if after not in _SCALAR_CLOSE:
        return False
    return (
        before in _SCALAR_OPEN
        or (
            start >= 3
            and data[start - 2] == 0x2D  # "-"
            and data[start - 1 : start].isalpha()
            and data[start - 3] in _SCALAR_OPEN
        )
    )


def is_key_at(data: bytes, start: int, end: int, fmt: str) -> bool:
    """Whether ``data[start:end]`` is a mapping key (JSON ``"k":``, YAML ``k:``), not a value.

    A value found under a secret key may also be spelled as a key elsewhere in
    the document (``{"password": "admin", "admin": true}``); the key is
    structure, and structure is evidence: it is never rewritten.
    """
    after = data[end : end + 3]
    if data[start - 1 : start] in (b'"', b"'"):
        after = after[1:] if after[:1] == data[start - 1 : start] else b"!"
    after = after.lstrip(b" \t")
    if fmt == "json":
        return after[:1] == b":"
    if after[:1] != b":" or after[1:2] not in (b" ", b"\n", b"\r", b""):
        return False
    line_start = data.rfind(b"\n", 0, start) + 1
    lead = data[line_start:start].strip(b" \t\"'")
    return lead in (b"", b"-", b"?", b"{", b",")


def find_secrets(documents: Iterable[Any], classify: Classify = secret_kind) -> list[Found]:
    walk = _Walk(classify)
    for document in documents:
        _walk(document, "", walk, 0)
    return walk.found


@dataclass
class _Walk:
    """One walk: what it found, and whether it reached everything.

    ``keys`` remembers, per key name, its kind and whether it is a bare name
    (``key``, ``value``): a listing repeats the same dozen keys thousands of
    times, and asking ``classify`` each time was most of the walk.
    """

    classify: Classify
    walked: dict[int, Any] | None = None
    """Containers walked already, by id (each held: no id is reused while it is), when a
    document can reach one twice (YAML aliases). What a container holds does not depend on
    how it was reached, and walking it again each time made a 500-byte alias bomb a walk
    of 10^9 containers (a heuristic used to skip such documents: also every large listing
    of CronJobs, with thousands of ``*`` in their schedules, and one ``&``)."""
    found: list[Found] = dataclasses.field(default_factory=list)
    keys: dict[str, tuple[str | None, bool]] = dataclasses.field(default_factory=dict)
    too_deep: bool = False
    """Whether a container lay deeper than :data:`~.walklimits.WALK_DEPTH` (not walked)."""


_CONTAINERS = (dict, list)


_BARE_TOKEN = re.compile(rb"REDACTED:[a-z0-9][a-z0-9-]{0,39}:[0-9a-f]{8}")


def _scalar(value: Any) -> bytes | None:
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, bytes):  # YAML !!binary: the text holds it as base64
        return base64.b64encode(value)
    if isinstance(value, str):
        data = value.encode("utf-8", "surrogateescape")
        return None if is_placeholder(data) else data
    if isinstance(value, int | float):
        return str(value).encode()
    return None


def _walk(node: Any, path: str, walk: _Walk, depth: int) -> None:
    """Append the secret values under ``node`` to ``walk.found``."""
    if walk.walked is not None and isinstance(node, _CONTAINERS):
        if id(node) in walk.walked:
            return  # walked where it was reached first (deeper here, perhaps)
        walk.walked[id(node)] = node
    if depth >= WALK_DEPTH and isinstance(node, _CONTAINERS):
        walk.too_deep = True
        return
    if isinstance(node, list):
        if type(node) is list and len(node) > 1:  # a command line as a list of arguments
            for at, argv_kind, argument in argv_secrets(node, walk.classify):
                walk.found.append(
                    Found(argv_kind, argument, f"{path}/{at}", isinstance(node[at], str))
                )
        # a lazy list's items are built one at a time, never shared with another item:
        # what the walk remembers of one goes with it
        fresh, walked = type(node) is not list and walk.walked is not None, walk.walked
        for index, item in enumerate(node):
            if isinstance(item, _CONTAINERS):  # a scalar alone is never a secret here
                if fresh:
                    walk.walked = {}
                _walk(item, f"{path}/{index}", walk, depth + 1)
        walk.walked = walked
        return
    if not isinstance(node, dict):
        return
    found, keys, classify = walk.found, walk.keys, walk.classify
    if node.get("kind") == "Secret" and isinstance(
        node.get("data") or node.get("stringData"), dict
    ):
        _k8s_secret(node, path, found)
    # {"value": ..., "sensitive": true}: two lookups in C, most mappings hold no value
    marked_key = flagged_value(node) if "value" in node or "Value" in node else None
    if marked_key is not None:
        _all_leaves(node[marked_key], f"{path}/{marked_key}", "secret", found, depth)
    if "instances" in node or "sensitive_values" in node:  # a Terraform resource
        for below, marked_kind, marked in terraform_secrets(node):
            _all_leaves(marked, f"{path}/{below}", marked_kind, found, depth)
    # both asked here first, in C: most mappings hold neither a pair nor a split command line
    pair_kind = _pair_kind(node, classify) if "value" in node or "Value" in node else None
    if not _ARGV_KEYS.isdisjoint(node):
        _joined_argv(node, path, walk)
    for key, value in node.items():
        if isinstance(key, str):
            facts = keys.get(key)
            if facts is None:
                facts = keys[key] = (classify(str(key)), key.lower() in BARE_KEY_NAMES)
            kind, bare = facts
        else:
            kind, bare = None, False
        if pair_kind and key in ("value", "Value"):
            kind = pair_kind
        elif (
            kind is None
            and bare
            and isinstance(value, str)
            and generated_secret(value.encode("utf-8", "surrogateescape"))
        ):
            kind = "secret-key"  # Ceph auth: {"entity": "osd.0", "key": "AQ...=="}
        if kind:
            items: Iterable[tuple[int | None, Any]] = (
                enumerate(value) if isinstance(value, list) else [(None, value)]
            )
            for position, item in items:
                data = _scalar(item)
                if data is not None:
                    where = f"{path}/{key}" if position is None else f"{path}/{key}/{position}"
                    found.append(
                        Found(kind, data, where, isinstance(item, str), _derived(kind, data))
                    )
        if isinstance(value, _CONTAINERS):  # the path is built only where it is needed
            _walk(value, f"{path}/{key}", walk, depth + 1)


_ARGV_PAIRS = (("command", "args"), ("entrypoint", "cmd"), ("entrypoint", "command"))
"""Two lists that make one command line: a Kubernetes container's ``command`` then its
``args``, Docker's ``Entrypoint`` then ``Cmd``, Compose's ``entrypoint`` then ``command``."""


_ARGV_KEYS = frozenset(
    spelled
    for pair in _ARGV_PAIRS
    for name in pair
    for spelled in (name, name.title(), name.upper())
)
"""The keys of :data:`_ARGV_PAIRS` as they are written (``command``, ``Cmd``, ``ENTRYPOINT``)."""


def _joined_argv(node: dict[Any, Any], path: str, walk: _Walk) -> None:
    """The secrets of a command line split over two lists (``command: [app, --password]``,
    ``args: [PW]``): each list alone holds a flag without its value, or a value without its
    flag, so they are read joined, and what lies in the second list is found."""
    if len(_ARGV_KEYS & node.keys()) < 2:
        return
    lists = {k.lower(): (k, v) for k, v in node.items() if type(v) is list and isinstance(k, str)}
    for head, tail in _ARGV_PAIRS:
        if head not in lists or tail not in lists:
            continue
        (_, first), (tail_key, second) = lists[head], lists[tail]
        for at, kind, argument in argv_secrets([*first, *second], walk.classify):
            if at >= len(first):
                index = at - len(first)
                walk.found.append(
                    Found(
                        kind, argument, f"{path}/{tail_key}/{index}", isinstance(second[index], str)
                    )
                )
        return


def _pair_kind(node: dict[Any, Any], classify: Classify) -> str | None:
    """The kind of a ``{"name": N, "value": V}`` pair's value (None: no pair, or N names no
    secret); asked only of a mapping with a value key."""
    name = node.get("name", node.get("Name", node.get("key")))
    return classify(name) if isinstance(name, str) else None


def _all_leaves(value: Any, path: str, kind: str, found: list[Found], depth: int) -> None:
    """Every scalar in ``value``, which its document marks secret as a whole (a Terraform
    output may be an object: all of it is the secret)."""
    if depth >= WALK_DEPTH:
        return  # the walk itself stops there and says so
    if isinstance(value, dict):
        for key, item in value.items():
            _all_leaves(item, f"{path}/{key}", kind, found, depth + 1)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _all_leaves(item, f"{path}/{index}", kind, found, depth + 1)
    else:
        data = _scalar(value)
        if data is not None:
            found.append(Found(kind, data, path, isinstance(value, str), _derived(kind, data)))


def _k8s_secret(node: dict[str, Any], path: str, found: list[Found]) -> None:
    for field in ("data", "stringData"):
        values = node.get(field)
        if not isinstance(values, dict):
            continue
        for key, value in values.items():
            data = _scalar(value)
            if data is None:
                continue
            extra = tuple(_decoded_layers(data)) if field == "data" else ()
            found.append(Found("k8s-secret", data, f"{path}/{field}/{key}", True, extra))


def _decoded_layers(data: bytes, depth: int = 3) -> Iterator[bytes]:
    """base64, base64 of base64, ...: every printable layer is a form of the secret."""
    for _ in range(depth):
        compact = data.replace(b"\n", b"")
        if not _B64.fullmatch(compact):
            return
        try:
            data = base64.b64decode(compact, validate=True)
        except (binascii.Error, ValueError):
            return
        if len(data) >= 4:
            yield data
        for line in data.splitlines():
            if len(line.strip()) >= 8 and line.strip() != data.strip():
                yield line.strip()


def _derived(kind: str, data: bytes) -> tuple[bytes, ...]:
    """Other forms worth propagating: decoded Basic/Docker auth, lines of a multi-line value."""
    extra: list[bytes] = []
    if kind == "auth" and _B64.fullmatch(data):
        try:
            decoded = base64.b64decode(data + b"=" * (-len(data) % 4), validate=True)
        except (binascii.Error, ValueError):
            decoded = b""
        if b":" in decoded and decoded.isascii():
            extra += [decoded, decoded.split(b":", 1)[1]]
    if b"\n" in data.strip():
        extra += [line.strip() for line in data.splitlines() if len(line.strip()) >= 4]
    return tuple(extra)


def redact_object(
    obj: Any,
    token_for: Callable[[str, bytes, tuple[bytes, ...]], str],
    redact_string: Callable[[str], str],
    classify: Classify = secret_kind,
) -> Any:
    """A copy of ``obj`` with secret values replaced by tokens and every string redacted.

    Raises :class:`~.errors.NestedTooDeep` for containers deeper than :data:`WALK_DEPTH`
    (the copy used to keep them as they were, strings and secrets in clear).
    """
    secrets = {(f.path, f.value): f for f in find_secrets([obj], classify)}

    def walk(node: Any, path: str, depth: int) -> Any:
        if depth >= WALK_DEPTH and isinstance(node, _CONTAINERS):
            raise NestedTooDeep(f"an object nested deeper than {WALK_DEPTH} levels")
        if isinstance(node, dict):
            return {k: walk(v, f"{path}/{k}", depth + 1) for k, v in node.items()}
        if isinstance(node, list):
            return [walk(v, f"{path}/{i}", depth + 1) for i, v in enumerate(node)]
        data = _scalar(node)
        found = secrets.get((path, data)) if data is not None else None
        if found is not None:
            return token_for(found.kind, found.value, found.extra)
        if isinstance(node, str):
            return redact_string(node)
        return node

    return walk(obj, "", 0)
