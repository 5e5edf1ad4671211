"""Raw responses against the product's own models: kept either way, flagged when they differ.

A record that does not match its model is evidence too (a newer product, a
broken endpoint), so it is never dropped: its member is stored and marked
``valid=False``, and the first validation error becomes the outcome's note.
Fan-outs read their items with RFC 6901 JSON pointers.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from pydantic import BaseModel, TypeAdapter, ValidationError

from ..jsondoc import MAX_JSON_DEPTH, JsonRefused, JsonTooDeep, loads_bounded
from .plan import ForEach


@dataclass(frozen=True)
class JsonCheck:
    parsed: Any | None
    parse_error: str | None = None
    valid: bool | None = None
    problem: str | None = None


def check_json(
    content: bytes, schema_name: str | None, raw_models: Mapping[str, type[BaseModel]]
) -> JsonCheck:
    """Parse ``content`` and validate it against ``raw_models[schema_name]`` if named."""
    blank = blank_bytes(content)
    if blank is not None:
        held = "only whitespace" if blank else "empty"
        return JsonCheck(
            None,
            f"{held} ({blank} bytes) where a JSON document was expected",
            valid=False if schema_name else None,
        )
    try:
        parsed = loads_bounded(content, "the response")
    except ValueError as exc:
        return JsonCheck(None, _parse_error(exc), valid=False if schema_name else None)
    if schema_name is None:
        return JsonCheck(parsed)
    is_list = schema_name.endswith("[]")
    model = raw_models.get(schema_name) or raw_models.get(schema_name.removesuffix("[]"))
    if model is None:
        return JsonCheck(parsed, problem=f"profile declares no raw model {schema_name!r}")
    mismatch = _first_mismatch(model, is_list, parsed)
    if mismatch is not None:
        where, message = mismatch
        return JsonCheck(
            parsed, valid=False, problem=f"does not match {schema_name} at /{where}: {message}"
        )
    return JsonCheck(parsed, valid=True)


def blank_bytes(content: bytes) -> int | None:
    """How many bytes an answer holding no JSON value at all has (0: empty), else None.

    ``json`` calls such a document ``Expecting value: line 1 column 1 (char 0)``,
    which names no cause; a server that answered ``204 No Content`` or an empty
    ``200``, or a command that printed nothing, said nothing, and its outcome says so.
    Whitespace is JSON's own (space, tab, line feed, carriage return).
    """
    return len(content) if not content.strip(b" \t\r\n") else None


def _parse_error(exc: ValueError) -> str:
    """One line for any JSON the collector cannot use, kept then as a text member.

    Not only syntax errors: nesting past :data:`MAX_JSON_DEPTH` (``json`` would
    raise RecursionError, and every later walk of the tree could too) and an
    integer past Python's digit limit (a plain ValueError) are hostile or broken
    answers alike, and must not become an internal error that loses the body. A
    duplicate key, a lone surrogate or a number that is not finite parses, but is
    refused as ambiguous or unwritable (:mod:`bundler.jsondoc`), naming where.
    """
    if isinstance(exc, JsonTooDeep):
        return f"not valid JSON: nested deeper than {MAX_JSON_DEPTH} levels"
    if isinstance(exc, json.JSONDecodeError | UnicodeDecodeError):
        return f"not valid JSON: {exc}"
    if isinstance(exc, JsonRefused):  # one line already, naming where: kept whole
        return f"not usable as JSON: {exc}"
    return f"not usable as JSON: {str(exc).split(';')[0]}"


def _first_mismatch(model: type[BaseModel], is_list: bool, parsed: Any) -> tuple[str, str] | None:
    """Where and how ``parsed`` first differs from the model, or None when it matches.

    A listing is validated record by record, each model let go at once: validating it
    whole built every record's model before dropping them all (a 1,000-worker
    ``GET /workers``: ~4 MB of models on top of its parsed tree, doctor's peak).
    """
    if is_list and isinstance(parsed, list):
        record = _adapter(model, False)
        for index, item in enumerate(parsed):
            try:
                record.validate_python(item)
            except ValidationError as exc:
                where, message = _first_error(exc)
                return "/".join(filter(None, (str(index), where))), message
        return None
    try:
        _adapter(model, is_list).validate_python(parsed)
    except ValidationError as exc:
        return _first_error(exc)
    return None


def _first_error(exc: ValidationError) -> tuple[str, str]:
    first = exc.errors()[0]
    return "/".join(str(p) for p in first["loc"]), first["msg"]


@lru_cache(maxsize=256)
def _adapter(model: type[BaseModel], is_list: bool) -> TypeAdapter[Any]:
    """Building a validator is costly; fan-outs validate hundreds of records of one model."""
    return TypeAdapter(list[model] if is_list else model)  # type: ignore[valid-type]


def resolve_pointer(document: Any, pointer: str) -> Any:
    """RFC 6901; raises KeyError when the pointer does not resolve."""
    if pointer == "":
        return document
    if not pointer.startswith("/"):
        raise KeyError(pointer)
    current = document
    for raw in pointer[1:].split("/"):
        token = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(current, list):
            if not token.isdigit() or int(token) >= len(current):
                raise KeyError(pointer)
            current = current[int(token)]
        elif isinstance(current, dict) and token in current:
            current = current[token]
        else:
            raise KeyError(pointer)
    return current


def expand(for_each: ForEach, documents: list[Any]) -> tuple[list[dict[str, str]], int]:
    """Bindings of a fan-out over the parents' documents (in order), and how many were cut.

    Items whose bound values do not resolve to scalars are left out (a value
    that is not a string or number cannot be a path segment).
    """
    return limit(for_each, [candidates(for_each, document) for document in documents])


def candidates(for_each: ForEach, document: Any) -> list[dict[str, str]]:
    """Every binding one parent document offers, before the fan-out's limit.

    What the engine keeps of a fanned-out parent while the run goes on: a list
    of 1,000 workers is megabytes once parsed, the names bound from it kilobytes.
    """
    try:
        items = resolve_pointer(document, for_each.items)
    except KeyError:
        return []
    bindings = []
    for item in items if isinstance(items, list) else []:
        if not _matches(item, for_each.where):
            continue
        bound = _bind(item, for_each.bind)
        if bound is not None:
            bindings.append(bound)
    return bindings


def limit(
    for_each: ForEach, per_document: list[list[dict[str, str]]]
) -> tuple[list[dict[str, str]], int]:
    """The first ``for_each.limit`` bindings over the documents in order, and how many were cut."""
    bindings = [bound for document in per_document for bound in document]
    return bindings[: for_each.limit], max(0, len(bindings) - for_each.limit)


def _matches(item: Any, where: Mapping[str, list[str]]) -> bool:
    for pointer, allowed in where.items():
        try:
            value = resolve_pointer(item, pointer)
        except KeyError:
            return False
        if _scalar(value) not in allowed:
            return False
    return True


def _bind(item: Any, bind: Mapping[str, str]) -> dict[str, str] | None:
    bound = {}
    for name, pointer in bind.items():
        try:
            value = _scalar(resolve_pointer(item, pointer))
        except KeyError:
            return None
        if value is None:
            return None
        bound[name] = value
    return bound


def _scalar(value: Any) -> str | None:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str | int | float):
        return str(value)
    return None
