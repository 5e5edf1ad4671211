"""Helpers to read the LyftData OpenAPI document and validate bodies against it."""

from __future__ import annotations

import importlib
import importlib.resources
import re
from functools import cache
from typing import Any

import jsonschema
import yaml
from pydantic import BaseModel

RAW_PACKAGE = "bundler.products.lyftdata.raw"


@cache
def openapi() -> dict[str, Any]:
    text = (
        importlib.resources.files("bundler.products.lyftdata").joinpath("openapi.yaml").read_text()
    )
    return dict(yaml.safe_load(text))


def component(name: str) -> dict[str, Any]:
    return dict(openapi()["components"]["schemas"][name])


def x_model(schema: dict[str, Any]) -> type[BaseModel]:
    module, _, cls = schema["x-model"].partition(":")
    model: type[BaseModel] = getattr(importlib.import_module(f"{RAW_PACKAGE}.{module}"), cls)
    return model


def ref_name(ref: str) -> str:
    return ref.rsplit("/", 1)[-1]


def response_schema(path: str, method: str = "get", status: str = "200") -> dict[str, Any]:
    response = openapi()["paths"][path][method]["responses"][status]
    return dict(response["content"]["application/json"]["schema"])


def validator_for(schema: dict[str, Any]) -> jsonschema.Draft202012Validator:
    """A validator for ``schema`` that resolves ``#/components/...`` refs in the document."""
    rooted = {**schema, "components": openapi()["components"]}
    return jsonschema.Draft202012Validator(rooted)


def template_regex(template: str) -> re.Pattern[str]:
    """'/api/workers/{id}/remove*' -> a regex matching concrete paths of that route.

    ``{x}`` is one segment, a trailing ``*`` anything (the collection engine's rule).
    """
    wildcard = template.endswith("*")
    parts = re.split(r"(\{[^}]+\})", template.rstrip("*"))
    body = "".join("[^/]+" if p.startswith("{") else re.escape(p) for p in parts)
    return re.compile(f"^{body}{'.*' if wildcard else ''}$")


def refs_in(node: Any) -> set[str]:
    """Every component name referenced anywhere under ``node``."""
    found: set[str] = set()
    if isinstance(node, dict):
        if "$ref" in node:
            found.add(ref_name(node["$ref"]))
        for value in node.values():
            found |= refs_in(value)
    elif isinstance(node, list):
        for value in node:
            found |= refs_in(value)
    return found
