"""The catalog logic that keeps samples/README.md honest: outcome, expectations, table."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from samples import catalog
from samples.catalog import SampleEntry, outcome_of
from samples.expectations import failed_layer_codes, lyftdata_problem


def finding(code: str, severity: str = "fail", native: str | None = None) -> dict[str, Any]:
    return {"code": code, "severity": severity, "native_code": native}


def report(
    verdict: str,
    layer: str | None,
    rungs: dict[str, list[dict[str, Any]]],
    fleet: tuple[dict[str, Any], ...] = (),
) -> dict[str, Any]:
    layers = [{"name": name, "findings": found} for name, found in rungs.items()]
    return {
        "verdict": verdict,
        "first_failed_layer": layer,
        "targets": [
            {"first_failed_layer": None, "layers": [{"name": "server", "findings": []}]},
            {"first_failed_layer": layer, "layers": layers},
        ],
        "fleet_findings": list(fleet),
    }


def test_main_finding_is_the_most_specific_failure_of_the_first_failed_layer() -> None:
    blocked = report(
        "blocked",
        "heartbeat",
        {
            "server": [finding("SERVER_OK", "pass")],
            "heartbeat": [
                finding("WORKER_OFFLINE"),
                finding("FLUX_WORKER_EVICTED"),
                finding("LATE", "warn"),
            ],
        },
    )
    found = outcome_of(blocked)
    assert (found.verdict, found.first_failed_layer) == ("blocked", "heartbeat")
    assert found.code == "FLUX_WORKER_EVICTED"
    assert found.codes == ("WORKER_OFFLINE", "FLUX_WORKER_EVICTED")


def test_healthy_has_no_main_finding_and_degraded_names_its_first_warning() -> None:
    assert outcome_of(report("healthy", None, {"server": [finding("OK", "pass")]})).code is None
    degraded = report("degraded", None, {"capacity": [finding("STARVED", "warn")]})
    assert outcome_of(degraded).code == "STARVED"
    fleet_only = report("degraded", None, {}, fleet=(finding("CLOCK_SKEW", "warn"),))
    assert outcome_of(fleet_only).code == "CLOCK_SKEW"


def test_expectations_accept_native_codes_and_reject_a_wrong_layer() -> None:
    blocked = report(
        "blocked", "deployment", {"deployment": [finding("DEPLOYMENT_FAILED", native="NOT_STAGED")]}
    )
    assert failed_layer_codes(blocked) == {"DEPLOYMENT_FAILED", "NOT_STAGED"}
    promise = {"first_failed_layer": "deployment", "codes": ["NOT_STAGED"]}
    assert lyftdata_problem(blocked, promise) is None
    wrong = lyftdata_problem(blocked, {"first_failed_layer": "placement", "codes": []})
    assert wrong == "first failed layer deployment, expected placement"
    missing = lyftdata_problem(blocked, {"first_failed_layer": "deployment", "codes": ["X"]})
    assert missing == "finding X missing at layer deployment"
    assert lyftdata_problem(blocked, {"verdict": "healthy"}) == "verdict blocked, expected healthy"


def entry(file: str, product: str = "flux", **changes: Any) -> SampleEntry:
    values: dict[str, Any] = {
        "file": file, "product": product, "scenario": file.split("-", 1)[1].removesuffix(".zip"),
        "shows": "A | pipe", "opening": "password", "verdict": "blocked",
        "first_failed_layer": "heartbeat", "code": "X", "size_bytes": 2048,
    }  # fmt: skip
    values.update(changes)
    return SampleEntry(**values)


def test_table_rows_are_sorted_escaped_and_totalled() -> None:
    table = catalog.render_table(
        [
            entry("lyftdata-b.zip", "lyftdata"),
            entry("flux-a.zip", opening="identity", first_failed_layer=None, code=None),
        ]
    )
    rows = [line for line in table.splitlines() if line.startswith("| [")]
    assert [r.split("`")[1] for r in rows] == ["flux-a.zip", "lyftdata-b.zip"]
    assert "| A / pipe |" in rows[0]
    assert "| — | — | 2 KiB | `--identity` |" in rows[0]
    assert table.endswith("2 bundles, 0.0 MiB in all.")


def test_readme_table_is_replaced_between_the_markers_only() -> None:
    readme = f"intro\n{catalog.TABLE_BEGIN}\nold table\n{catalog.TABLE_END}\noutro\n"
    once = catalog.with_table(readme, [entry("flux-a.zip")])
    assert once.startswith("intro\n")
    assert once.endswith(f"{catalog.TABLE_END}\noutro\n")
    assert "old table" not in once
    assert catalog.table_section(once) == catalog.render_table([entry("flux-a.zip")])
    assert catalog.with_table(once, [entry("flux-a.zip")]) == once
    with pytest.raises(ValueError, match="markers"):
        catalog.table_section("no markers here")


def test_catalog_round_trips(tmp_path: Path) -> None:
    entries = [entry("lyftdata-b.zip", "lyftdata"), entry("flux-a.zip", codes=["X", "Y"])]
    path = tmp_path / "catalog.json"
    catalog.save_catalog(entries, path)
    loaded = catalog.load_catalog(path)
    assert [e.file for e in loaded] == ["flux-a.zip", "lyftdata-b.zip"]
    assert loaded[0] == entries[1]
