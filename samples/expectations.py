"""Does an analysis report say what its scenario promises? (checked before a sample is kept)

A live lab on a busy machine can land a fault late or not at all; a sample
recorded from such a run would document a wrong verdict forever. So the
regeneration compares every report with the scenario's own expectation
(Flux: ``expect_layer`` / ``expect_code``; LyftData: the ``expect`` block)
and keeps only bundles that match.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from bundler.plurals import plural

if TYPE_CHECKING:
    from .flux_lab.scenarios import Scenario


def failed_layer_codes(report: dict[str, Any]) -> set[str]:
    """Codes and native codes of failing findings on the report's first failed layer."""
    layer = report.get("first_failed_layer")
    codes: set[str] = set()
    for target in report.get("targets", []):
        if target.get("first_failed_layer") != layer:
            continue
        for rung in target["layers"]:
            if rung["name"] != layer:
                continue
            for finding in rung["findings"]:
                if finding["severity"] == "fail":
                    codes.add(finding["code"])
                    if finding.get("native_code"):
                        codes.add(finding["native_code"])
    return codes


def _problem(
    report: dict[str, Any], layer: str | None, codes: list[str], verdict: str | None
) -> str | None:
    got_layer = report.get("first_failed_layer")
    if verdict is not None and report["verdict"] != verdict:
        return f"verdict {report['verdict']}, expected {verdict}"
    if layer is not None and got_layer != layer:
        return f"first failed layer {got_layer}, expected {layer}"
    missing = sorted(set(codes) - failed_layer_codes(report))
    if missing:
        named = f"{plural(len(missing), 'finding')} {', '.join(missing)}"
        return f"{named} missing at layer {got_layer}"
    return None


def flux_problem(report: dict[str, Any], scenario: Scenario) -> str | None:
    codes = [scenario.expect_code] if scenario.expect_code else []
    verdict = None if scenario.expect_layer else "healthy"
    return _problem(report, scenario.expect_layer, codes, verdict)


def lyftdata_problem(report: dict[str, Any], expect: dict[str, Any]) -> str | None:
    codes = expect.get("codes", [])
    verdict = expect.get("verdict")
    layer = expect.get("first_failed_layer")
    problem = _problem(report, layer, list(codes) if isinstance(codes, list) else [codes], verdict)
    return problem or _status_problem(report, expect)


def _status_problem(report: dict[str, Any], expect: dict[str, Any]) -> str | None:
    """``unknown_layers`` / ``unknown_codes`` / ``warn_layers`` / ``warn_codes`` of a scenario."""
    for status in ("unknown", "warn"):
        rungs = [
            rung
            for target in report.get("targets", [])
            for rung in target["layers"]
            if rung.get("status") == status
        ]
        missing = set(expect.get(f"{status}_layers", [])) - {rung["name"] for rung in rungs}
        missing |= set(expect.get(f"{status}_codes", [])) - {
            f["code"] for rung in rungs for f in rung.get("findings", [])
        }
        if missing:
            return f"{', '.join(sorted(missing))} not {status} in the report"
    return None
