"""The finding-code catalog is complete, used, and every recovery id it names has a text.

Walks the source of every rule module (generic and both products), the engine's
own modules that report findings, and every other module of bundler, statically: a code
must be a catalog constant, never a string literal; every declared code is used
somewhere; each recovery id resolves to a generic path or to the product's own
``RECOVERIES``. ``docs/finding-codes.md`` is exactly what the catalogs render.
"""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

from bundler.analyze import recovery
from bundler.analyze.catalog import Catalog, markdown_table
from bundler.analyze.codes import GENERIC
from bundler.products import PROFILES, get_profile

ROOT = Path(__file__).resolve().parents[2]
ANALYZE = ROOT / "bundler" / "analyze"
PRODUCTS = ROOT / "bundler" / "products"
DECLARERS = [ANALYZE / "codes.py", *sorted(PRODUCTS.glob("*/codes.py"))]
"""The catalogs: a code they declare is not "used" there, but one they read (a table) is."""
REPORTERS = sorted(set((ROOT / "bundler").rglob("*.py")) - set(DECLARERS))
"""Every other module of bundler: the rules of both products and the generic ones, the
engine, the matching models, the acceptance checklist and the renderers."""
CONSTRUCTORS = {"fail", "warn", "unknown", "not_applicable", "note", "make_finding", "Finding"}
LOOKS_LIKE_A_CODE = re.compile(r"^[A-Z][A-Z0-9_]{3,}$")


def _catalogs() -> dict[str, Catalog]:
    found = {"generic": GENERIC}
    for name in PROFILES:
        found[name] = get_profile(name).finding_codes
    return found


def _every_code() -> dict[str, str]:
    """Code -> the catalog that declares it."""
    owners: dict[str, str] = {}
    for owner, catalog in _catalogs().items():
        for code in catalog:
            assert code not in owners, f"{code} declared by {owners[code]} and {owner}"
            owners[code] = owner
    return owners


def _code_argument(node: ast.Call) -> ast.expr | None:
    name = getattr(node.func, "attr", getattr(node.func, "id", ""))
    if name not in CONSTRUCTORS:
        return None
    for keyword in node.keywords:
        if keyword.arg == "code":
            return keyword.value
    return node.args[0] if node.args else None


def _scan() -> tuple[set[str], list[str]]:
    """(codes referenced as constants, problems: literals where a constant belongs)."""
    known = _every_code()
    used: set[str] = set()
    problems: list[str] = []
    for path in DECLARERS:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in known:
                used.add(node.id)
    for path in REPORTERS:
        rel = path.relative_to(ROOT)
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Attribute) and node.attr in known:
                used.add(node.attr)
            elif isinstance(node, ast.Name) and node.id in known:
                used.add(node.id)
            elif isinstance(node, ast.Constant) and node.value in known:
                problems.append(f"{rel}:{node.lineno}: literal {node.value!r}, use the constant")
            elif isinstance(node, ast.Call):
                arg = _code_argument(node)
                value = arg.value if isinstance(arg, ast.Constant) else None
                named = isinstance(value, str) and LOOKS_LIKE_A_CODE.match(value)
                if named and value not in known:
                    problems.append(f"{rel}:{node.lineno}: {value} is in no catalog")
    return used, problems


def test_rules_report_only_catalogued_codes_as_constants() -> None:
    _, problems = _scan()
    assert problems == []


def test_every_catalogued_code_is_reported_by_some_rule() -> None:
    used, _ = _scan()
    assert len(used) > 150
    assert sorted(set(_every_code()) - used) == []


def test_every_recovery_id_has_a_recovery_text() -> None:
    missing = []
    for owner, catalog in _catalogs().items():
        own = {}
        if owner != "generic":
            own = importlib.import_module(f"bundler.products.{owner}.recovery").RECOVERIES
        for entry in catalog.values():
            if entry.recovery is not None and entry.recovery not in {**recovery.PATHS, **own}:
                missing.append((owner, entry.code, entry.recovery))
    assert missing == []


def test_every_code_has_a_title_and_a_known_rung() -> None:
    for catalog in _catalogs().values():
        for entry in catalog.values():
            assert entry.title, entry.code
            assert entry.title == entry.title.strip(), entry.code
            assert LOOKS_LIKE_A_CODE.match(entry.code), entry.code


def test_the_docs_list_exactly_the_catalogued_codes() -> None:
    doc = (ROOT / "docs" / "finding-codes.md").read_text()
    table = markdown_table(*_catalogs().values())
    assert table in doc, "docs/finding-codes.md is stale: python -m bundler.analyze.catalog"
