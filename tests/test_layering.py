"""Layering: schemas <- redactors <- bundler, and inside bundler the CLI on top.

Lower layers never import higher ones: nothing outside ``bundler/cli`` imports
it or click, ``archive`` knows neither ``collect`` nor ``analyze``, and product
packages reach the engine only through :data:`PRODUCT_API`. Checked on the
source, statically, so an import hidden inside a function or under
``TYPE_CHECKING`` is caught too. The map is ``docs/architecture.md``.
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


# -- inside bundler ------------------------------------------------------------------------------
#
# Top first: cli -> doctor, serve, diff (the applications) -> analyze, redaction -> products
# -> collect -> archive -> source, errors, secret_options. A package imports only what is below
# it, and products reach the engine through a small named API (PRODUCT_API).

CLI_ENTRY_POINTS = {"bundler/__main__.py"}
"""``python -m bundler`` is the CLI's own entry point."""

PRODUCT_API = {
    "bundler.analyze.api": "the rule contract: rule, RuleContext, EvidenceSet, timeline types",
    "bundler.analyze.facts": "the evidence look-ups every rule shares (workers, jobs, citations)",
    "bundler.analyze.matching": "the shared matching model: Mismatch, availability",
    "bundler.analyze.wording": "naming many workers in a message, grouped by reason",
    "bundler.analyze.catalog": "Catalog, where a product declares its own finding codes",
    "bundler.analyze.codes": "the generic finding codes, for a product rule reporting one",
    "bundler.analyze.doubt": "evidence that cannot decide a rung (heartbeat or canary time)",
    "bundler.analyze.contradictions": "evidence that contradicts itself (a worker listed twice)",
    "bundler.analyze.recovery": "the product-neutral recovery texts, a product cites in its words",
    "bundler.analyze.checklist": "the acceptance checklist a product words (Checklist, Proof)",
    "bundler.analyze.logsource": "which copy of a worker's log (host, API) an event was read from",
    "bundler.collect.plan": "the plan model a profile returns",
    "bundler.collect.readonly": "ProgramRule, for a profile's read-only product commands",
    "bundler.collect.results": "StepResult, what a normalizer reads (via products.base)",
    "bundler.source": "MemberSource, how raw members are read",
    "bundler.errors": "the error types users see",
}
"""The only modules of bundler a product package may import (besides bundler.products)."""

BELOW = {
    "bundler/archive": {"bundler.cli", "bundler.doctor", "bundler.analyze", "bundler.collect",
                        "bundler.products", "bundler.redaction"},
    "bundler/collect": {"bundler.cli", "bundler.doctor", "bundler.analyze", "bundler.products",
                        "bundler.redaction"},
    # Inside collect: a transport says how to reach a thing, a task what to collect over it.
    "bundler/collect/transports": {"bundler.cli", "bundler.doctor", "bundler.analyze",
                                   "bundler.products", "bundler.redaction",
                                   "bundler.collect.tasks"},
    "bundler/analyze": {"bundler.cli", "bundler.doctor", "bundler.collect", "bundler.redaction"},
    "bundler/redaction": {"bundler.cli", "bundler.doctor", "bundler.analyze", "bundler.collect",
                          "bundler.products"},
    "bundler/products": {"bundler.cli", "bundler.doctor"},
    "bundler/doctor": {"bundler.cli", "bundler.serve", "bundler.diff"},
    "bundler/serve": {"bundler.cli", "bundler.doctor", "bundler.diff"},
    "bundler/diff": {"bundler.cli", "bundler.doctor", "bundler.serve"},
}  # fmt: skip
"""Package -> the bundler packages it must not import (they are above it)."""

ACROSS = {
    "bundler/analyze": {
        "bundler.collect.plan": "re-deriving evidence from raw/ rebuilds the plan's step results",
        "bundler.collect.validate": "... and a fan-out's bindings with the engine's own expand()",
    },
}
"""Named exceptions to BELOW: the plan model is a contract beside products, not the engine."""


def _imported_modules(path: Path, text: str | None = None) -> set[str]:
    """Every module ``path`` imports, relative imports resolved, TYPE_CHECKING ones included."""
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    package = parts[:-1]
    source = path.read_text() if text is None else text
    modules: set[str] = set()
    for node in ast.walk(ast.parse(source, filename=str(path))):
        if isinstance(node, ast.Import):
            modules.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            module = ".".join([*base, *([node.module] if node.module else [])])
            modules.add(module)
            modules.update(f"{module}.{alias.name}" for alias in node.names)
    return modules


def _within(module: str, packages: set[str] | dict[str, str]) -> bool:
    return any(module == p or module.startswith(p + ".") for p in packages)


def _offenders(folder: str, allowed: object) -> dict[str, list[str]]:
    found = {}
    for path in sorted((ROOT / folder).rglob("*.py")):
        rel = str(path.relative_to(ROOT))
        bad = sorted(m for m in _imported_modules(path) if not allowed(rel, m))  # type: ignore[operator]
        if bad:
            found[rel] = bad
    return found


def test_nothing_outside_the_cli_imports_it_or_click() -> None:
    def allowed(rel: str, module: str) -> bool:
        if rel.startswith("bundler/cli/") or rel in CLI_ENTRY_POINTS:
            return True
        return not _within(module, {"bundler.cli", "click"})

    assert _offenders("bundler", allowed) == {}


@pytest.mark.parametrize("folder", sorted(BELOW))
def test_bundler_packages_import_only_what_is_below_them(folder: str) -> None:
    allowed = ACROSS.get(folder, {})

    def below(rel: str, module: str) -> bool:
        return not _within(module, BELOW[folder]) or _within(module, allowed)

    assert _offenders(folder, below) == {}


def test_products_reach_the_engine_only_through_the_named_api() -> None:
    def allowed(rel: str, module: str) -> bool:
        if not module.startswith("bundler.") or _within(module, {"bundler.products"}):
            return True
        return _within(module, PRODUCT_API)

    assert _offenders("bundler/products", allowed) == {}


def test_the_import_scan_sees_relative_and_deferred_imports() -> None:
    """The checks above would pass vacuously if relative or deferred imports were missed."""
    probe = (
        "from typing import TYPE_CHECKING\n"
        "from ..cli.options import seal_options\n"
        "from . import zipwriter\n"
        "if TYPE_CHECKING:\n"
        "    from ..collect import engine\n"
        "def later():\n"
        "    import click\n"
    )
    found = _imported_modules(ROOT / "bundler" / "archive" / "probe.py", probe)
    assert {"bundler.cli.options", "bundler.archive.zipwriter", "bundler.collect.engine"} <= found
    assert "click" in found
    in_init = _imported_modules(ROOT / "bundler" / "archive" / "__init__.py", "from .. import x")
    assert "bundler.x" in in_init


_IMPORT_EACH = """
import importlib, pkgutil, sys
failed = []
for package in ("schemas", "redactors"):
    names = [package] + [
        found.name
        for found in pkgutil.walk_packages(importlib.import_module(package).__path__, package + ".")
    ]
    for name in names:
        for loaded in [m for m in sys.modules if m.split(".")[0] in ("schemas", "redactors")]:
            del sys.modules[loaded]
        try:
            importlib.import_module(name)
        except Exception as error:
            failed.append(f"{name}: {type(error).__name__}: {error}")
print("\\n".join(failed))
"""


def test_every_module_of_the_lower_layers_imports_on_its_own() -> None:
    """A module imported first, before anything else of the project, imports: an import
    cycle hidden by the order the test suite happens to load modules in (``redactors.argv``
    and the catalog's ``quotedargv`` once) breaks whoever imports that module first. The
    lower layers only: each import of ``bundler`` loads its models again (~0.3 s a module)."""
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-c", _IMPORT_EACH],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    assert done.stdout.strip() == ""
