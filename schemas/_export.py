"""Write every bundle model as a JSON Schema file, so non-Python tools can validate bundles.

The files are generated, committed, and checked: ``python -m schemas --check``
exits 1 when a model changed and the files were not regenerated (a test runs it).
"""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import BaseModel

from .analysis import AnalysisReport
from .diff import DiffReport
from .evidence import EVIDENCE_KINDS
from .manifest import Manifest
from .redaction import RedactionReport, ReviewResult

JSON_DIR = Path(__file__).with_name("json")


def exported_models() -> dict[str, type[BaseModel]]:
    """File stem -> model, for every schema we publish."""
    models: dict[str, type[BaseModel]] = {
        "manifest": Manifest,
        "analysis-report": AnalysisReport,
        "diff-report": DiffReport,
        "redaction-report": RedactionReport,
        "review-result": ReviewResult,
    }
    for name, cls in EVIDENCE_KINDS.items():
        models[name] = cls
    return models


def render_schemas() -> dict[str, str]:
    """File name -> JSON text of its schema (deterministic, sorted keys)."""
    rendered: dict[str, str] = {}
    for stem, model in sorted(exported_models().items()):
        schema = model.model_json_schema(mode="validation", by_alias=True)
        schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
        schema["$id"] = f"https://bundler.invalid/schemas/{stem}.schema.json"
        rendered[f"{stem}.schema.json"] = json.dumps(schema, indent=2, sort_keys=True) + "\n"
    return rendered


def stale_files(directory: Path = JSON_DIR) -> list[str]:
    """Names of schema files that are missing, different, or no longer generated."""
    expected = render_schemas()
    stale = [
        name
        for name, text in expected.items()
        if not (directory / name).is_file() or (directory / name).read_text() != text
    ]
    if directory.is_dir():
        stale += [p.name for p in directory.glob("*.schema.json") if p.name not in expected]
    return sorted(stale)


def write_schemas(directory: Path = JSON_DIR) -> list[str]:
    """(Re)write the schema files; return the names written."""
    directory.mkdir(parents=True, exist_ok=True)
    expected = render_schemas()
    for old in directory.glob("*.schema.json"):
        if old.name not in expected:
            old.unlink()
    for name, text in expected.items():
        (directory / name).write_text(text)
    return sorted(expected)
