"""Parse a bundle's manifest (or any JSON member) into its model, with one-line errors.

The format is checked before the schema, so a bundle from a future major
version says "needs a newer bundler" rather than listing validation errors.
Validation messages name the field and the rule, never the offending value.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ValidationError

from schemas import Manifest, UnsupportedFormatError, parse_format

from ..errors import ManifestInvalid, NotABundle
from ..jsondoc import JsonRefused, loads_bounded


def parse_manifest(data: bytes) -> Manifest:
    """The validated manifest; raises NotABundle (format) or ManifestInvalid (content)."""
    document = parse_json(data, "manifest.json", error=ManifestInvalid)
    if not isinstance(document, dict):
        raise ManifestInvalid("manifest.json is not a JSON object")
    fmt = document.get("format")
    if not isinstance(fmt, str):
        raise ManifestInvalid("manifest.json has no 'format' field")
    try:
        parse_format(fmt)
    except UnsupportedFormatError as exc:
        raise NotABundle(str(exc)) from exc
    try:
        return Manifest.model_validate(document)
    except ValidationError as exc:
        raise ManifestInvalid(f"manifest.json is invalid: {describe_validation(exc)}") from exc


def parse_json(data: bytes, member: str, *, error: type[Exception] = ValueError) -> Any:
    """The parsed document (nesting depth capped); ``error`` with a one-line reason otherwise."""
    try:
        return loads_bounded(data, member)
    except JsonRefused as exc:  # already one named line
        raise error(str(exc)) from None
    except ValueError as exc:
        raise error(f"{member} is not valid JSON (line {getattr(exc, 'lineno', '?')})") from exc


def validate_document(model: type[BaseModel], document: Any) -> str | None:
    """None when ``document`` is a valid ``model``, else a one-line reason."""
    try:
        model.model_validate(document)
    except ValidationError as exc:
        return describe_validation(exc)
    return None


def describe_validation(exc: ValidationError) -> str:
    """``at /members/3/sha256: String should match pattern (and 2 more)``: no values."""
    errors = exc.errors(include_input=False, include_url=False)
    first = errors[0]
    where = "/" + "/".join(str(part) for part in first["loc"])
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    return f"at {where}: {first['msg']}{more}"
