"""What a scenario's ``expect`` block means for an analysis report (shared by scenario tests)."""

from __future__ import annotations

from schemas import AnalysisReport, Finding, LayerStatus

UNTRUSTED = {"tls_untrusted"}
"""Scenarios whose client was never given the simulator's CA."""


def failed_layer_findings(report: AnalysisReport) -> list[Finding]:
    """Findings of the first failed layer of every blocked target."""
    found = []
    for target in report.targets:
        for layer in target.layers:
            if target.first_failed_layer is not None and layer.name == target.first_failed_layer:
                found += layer.findings
    return found


def assert_matches_expectation(report: AnalysisReport, expect: dict[str, object]) -> None:
    if "verdict" in expect:
        assert report.verdict.value == expect["verdict"], report.model_dump_json(indent=1)[:3000]
    if "first_failed_layer" in expect:
        assert report.first_failed_layer is not None
        assert report.first_failed_layer.value == expect["first_failed_layer"]
    codes = expect.get("codes", [])
    assert isinstance(codes, list)
    seen = {f.code for f in failed_layer_findings(report)}
    seen |= {f.native_code for f in failed_layer_findings(report) if f.native_code}
    assert set(codes) <= seen, (codes, sorted(seen))
    for status in ("unknown", "warn"):
        layers = expect.get(f"{status}_layers", [])
        assert isinstance(layers, list)
        found = layers_with_status(report, LayerStatus(status))
        assert set(layers) <= {layer for layer, _ in found}, (status, layers, found)
        wanted = expect.get(f"{status}_codes", [])
        assert isinstance(wanted, list)
        codes_there = {code for _, codes_of in found for code in codes_of}
        assert set(wanted) <= codes_there, (status, wanted, found)


def layers_with_status(report: AnalysisReport, status: LayerStatus) -> list[tuple[str, set[str]]]:
    """(layer name, its finding codes) of every layer of any target with ``status``."""
    return [
        (layer.name.value, {f.code for f in layer.findings})
        for target in report.targets
        for layer in target.layers
        if layer.status is status
    ]
