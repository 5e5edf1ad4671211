"""Words shared by the text and Markdown renderers."""

from __future__ import annotations

from typing import Any

from schemas import DiffReport
from schemas.diff import DiffSide, LayerChange

from ...timetext import utc

HEADLINES = {
    "recovered": "RECOVERED: every acceptance check that applies holds on AFTER, nothing regressed",
    "still_failing": "STILL FAILING: a layer or an acceptance check still fails on AFTER",
    "regressed": "REGRESSED: something that passed in BEFORE fails in AFTER",
    "inconclusive": "INCONCLUSIVE: nothing fails, but AFTER lacks evidence to prove the recovery",
}

PAIR_IN_DOUBT = "INCONCLUSIVE: nothing fails, but this pair cannot prove the recovery"
DOUBT_LABEL = "cannot prove a repair"
"""Leads each of the report's ``doubts`` in every format."""


def headline(report: DiffReport) -> str:
    """The verdict line; an inconclusive pair in doubt says it is the pair, not AFTER's evidence."""
    if report.verdict == "inconclusive" and report.doubts:
        return PAIR_IN_DOUBT
    return HEADLINES[report.verdict]


CHANGE_WORDS = {
    "fixed": "fixed",
    "still_failing": "still failing",
    "newly_failing": "newly failing",
    "became_unknown": "became unknown",
    "changed": "changed",
    "unchanged": "unchanged",
}


def status(value: Any) -> str:
    if value is None:
        return "absent"
    text = getattr(value, "value", value)
    return {"not_applicable": "n/a"}.get(text, text)


def layer_line(change: LayerChange) -> str:
    word = "REGRESSION" if change.regression else CHANGE_WORDS[change.change]
    if change.change == "changed" and status(change.before) == "skipped":
        word = "reached now that the layer below passes"
    elif change.change == "became_unknown" and status(change.after) == "skipped":
        word = "not reached: a layer below fails"
    return f"{change.layer.value}: {status(change.before)} -> {status(change.after)} ({word})"


def side_line(name: str, side: DiffSide) -> str:
    when = utc(side.created_at) if side.created_at else "time unknown"
    failed = (
        f", first failed layer {side.first_failed_layer.value}" if side.first_failed_layer else ""
    )
    return f"{name}: {side.label} ({when}) verdict {side.verdict.value}{failed}"


def shown(value: Any) -> str:
    if isinstance(value, dict):
        return ",".join(f"{k}={v}" for k, v in value.items()) or "{}"
    return "-" if value is None else str(value)


def interesting(report: DiffReport) -> list[tuple[str, list[LayerChange]]]:
    """Targets with at least one layer that changed, each with its changed layers."""
    rows = []
    for target in report.targets:
        changed = [layer for layer in target.layers if layer.change != "unchanged"]
        if changed:
            label = " / ".join(x for x in (target.worker, target.job) if x) or "fleet"
            if target.matched_by in ("before only", "after only"):
                label += f" ({target.matched_by})"
            rows.append((label, changed))
    return rows
