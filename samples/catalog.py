"""The sample catalog: what each committed bundle is, and what ``bundler analyze`` says of it.

``samples/bundles/catalog.json`` is written by the regeneration from the
*actual* ``bundler analyze --format json`` output of every bundle, and the
table in ``samples/README.md`` is rendered from it. The sample test checks
both directions: each bundle still analyzes to its catalog entry, and the
README table is exactly what the catalog renders to. So the table cannot
drift from the bundles, and a change in the analyzer's verdicts or format
fails a test until the samples are regenerated.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

SAMPLES_DIR = Path(__file__).resolve().parent
BUNDLES_DIR = SAMPLES_DIR / "bundles"
CATALOG_PATH = BUNDLES_DIR / "catalog.json"
README_PATH = SAMPLES_DIR / "README.md"
IDENTITY_PATH = SAMPLES_DIR / "keys" / "sample-identity"

SAMPLE_PASSWORD = "bundler-sample"  # noqa: S105 (documented: the samples hold lab data only)
PASSWORD_ENV = "BUNDLE_PW"  # noqa: S105 (a variable name)

TABLE_BEGIN = "<!-- BEGIN samples table: written by `python -m samples regenerate` -->"
TABLE_END = "<!-- END samples table -->"


@dataclass(frozen=True)
class Outcome:
    """What ``bundler analyze`` concluded, reduced to what the table shows."""

    verdict: str
    first_failed_layer: str | None
    code: str | None
    """The main finding: the most specific *fail* finding of the first failed layer.

    Rules on a rung run generic first and product-specific last, and the
    engine keeps that order within a severity, so the last failing finding is
    the most specific explanation (``FLUX_WORKER_EVICTED`` rather than the
    generic ``WORKER_OFFLINE``). With no failed layer: the first warning, if any.
    """
    codes: tuple[str, ...] = ()
    """Every failing code of that layer, in the report's order."""


def outcome_of(report: dict[str, Any]) -> Outcome:
    verdict = str(report["verdict"])
    layer = report.get("first_failed_layer")
    targets: list[dict[str, Any]] = report.get("targets", [])
    if layer:
        target = next(t for t in targets if t.get("first_failed_layer") == layer)
        findings = next(r["findings"] for r in target["layers"] if r["name"] == layer)
        failing = tuple(f["code"] for f in findings if f["severity"] == "fail")
        return Outcome(verdict, layer, failing[-1] if failing else None, failing)
    warnings = [
        f["code"]
        for t in targets
        for rung in t["layers"]
        for f in rung["findings"]
        if f["severity"] == "warn"
    ] + [f["code"] for f in report.get("fleet_findings", []) if f["severity"] == "warn"]
    return Outcome(verdict, None, warnings[0] if warnings else None, tuple(warnings[:1]))


@dataclass
class SampleEntry:
    file: str
    """Bundle file name under samples/bundles/."""
    product: str
    scenario: str
    shows: str
    opening: str
    """``password`` (the documented sample password) or ``identity`` (samples/keys)."""
    verdict: str
    first_failed_layer: str | None
    code: str | None
    codes: list[str] = field(default_factory=list)
    size_bytes: int = 0
    sha256: str = ""

    @classmethod
    def from_run(
        cls, bundle: Path, *, product: str, scenario: str, shows: str, opening: str,
        report: dict[str, Any],
    ) -> SampleEntry:  # fmt: skip
        found = outcome_of(report)
        return cls(
            file=bundle.name,
            product=product,
            scenario=scenario,
            shows=shows,
            opening=opening,
            verdict=found.verdict,
            first_failed_layer=found.first_failed_layer,
            code=found.code,
            codes=list(found.codes),
            size_bytes=bundle.stat().st_size,
            sha256=file_sha256(bundle),
        )

    def open_args(self, identity: Path = IDENTITY_PATH) -> list[str]:
        """The bundler options that open this sample."""
        return open_args(self.opening, identity)


def open_args(opening: str, identity: Path = IDENTITY_PATH) -> list[str]:
    """Options that open a sample sealed one way or the other (password in ``PASSWORD_ENV``)."""
    if opening == "identity":
        return ["--identity", str(identity)]
    return ["--password-env", PASSWORD_ENV]


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def load_catalog(path: Path = CATALOG_PATH) -> list[SampleEntry]:
    data = json.loads(path.read_text())
    return [SampleEntry(**item) for item in data["samples"]]


def save_catalog(entries: list[SampleEntry], path: Path = CATALOG_PATH) -> None:
    ordered = sorted(entries, key=lambda e: (e.product, e.scenario, e.file))
    body = {
        "about": "Written by `python -m samples regenerate` from `bundler analyze --format json`.",
        "password": SAMPLE_PASSWORD,
        "identity": "samples/keys/sample-identity",
        "samples": [asdict(e) for e in ordered],
    }
    path.write_text(json.dumps(body, indent=2) + "\n")


def _size(size: int) -> str:
    return f"{size / 1024:.0f} KiB"


def render_table(entries: list[SampleEntry]) -> str:
    """The README table (Markdown), one row per sample, in catalog order."""
    rows = [
        "| sample | product | scenario | what it shows | verdict | first failed layer "
        "| main finding | size | open with |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    total = 0
    for e in sorted(entries, key=lambda e: (e.product, e.scenario, e.file)):
        total += e.size_bytes
        opener = "`--identity`" if e.opening == "identity" else "password"
        rows.append(
            f"| [`{e.file}`](bundles/{e.file}) | {e.product} | `{e.scenario}` "
            f"| {e.shows.replace('|', '/')} | {e.verdict} | {e.first_failed_layer or '—'} "
            f"| {f'`{e.code}`' if e.code else '—'} | {_size(e.size_bytes)} | {opener} |"
        )
    rows.append("")
    rows.append(f"{len(entries)} bundles, {total / (1024 * 1024):.1f} MiB in all.")
    return "\n".join(rows)


def table_section(readme: str) -> str:
    """The generated part of the README, between the markers (without them)."""
    try:
        start = readme.index(TABLE_BEGIN) + len(TABLE_BEGIN)
        end = readme.index(TABLE_END, start)
    except ValueError:
        raise ValueError(f"{README_PATH.name} lacks the samples table markers") from None
    return readme[start:end].strip("\n")


def with_table(readme: str, entries: list[SampleEntry]) -> str:
    """``readme`` with the generated table replaced by one rendered from ``entries``."""
    start = readme.index(TABLE_BEGIN) + len(TABLE_BEGIN)
    end = readme.index(TABLE_END, start)
    return readme[:start] + "\n" + render_table(entries) + "\n" + readme[end:]
