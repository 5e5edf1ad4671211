"""Layering: schemas <- redactors <- bundler. Lower layers never import higher ones.

Checked on the source, statically, so an import hidden inside a function is
caught too.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FORBIDDEN = {
    "schemas": {"redactors", "bundler", "httpx", "paramiko", "pyzipper", "rich", "click"},
    "redactors": {"bundler", "httpx", "paramiko", "socket", "pyzipper", "rich", "click"},
}


def _imported_top_levels(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_lower_layers_do_not_import_higher_ones(package: str) -> None:
    offenders = {}
    for path in sorted((ROOT / package).rglob("*.py")):
        bad = _imported_top_levels(path) & FORBIDDEN[package]
        if bad:
            offenders[str(path.relative_to(ROOT))] = sorted(bad)
    assert offenders == {}


def test_schemas_depend_on_pydantic_only() -> None:
    allowed = {"pydantic", "schemas", "__future__"}
    stdlib = {
        "datetime",
        "enum",
        "typing",
        "re",
        "json",
        "pathlib",
        "sys",
        "collections",
    }
    extra = set()
    for path in (ROOT / "schemas").rglob("*.py"):
        extra |= _imported_top_levels(path) - allowed - stdlib
    assert extra == set()
