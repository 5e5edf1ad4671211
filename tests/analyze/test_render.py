"""Renderers: the same story in text and Markdown, and JSON valid against its published schema."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path

import jsonschema
import pytest

from bundler.analyze.engine import analyze
from bundler.analyze.render import render, render_json, render_markdown
from bundler.analyze.render.markdown import cell, code
from schemas import AnalysisReport, Integrity
from schemas.evidence import ConnectionState, JobPhase, JobRequirements
from tests.support.evidence import Fleet, job

SNAPSHOTS = Path(__file__).with_name("snapshots")
SCHEMA = Path(__file__).resolve().parents[2] / "schemas" / "json" / "analysis-report.schema.json"
UPDATE = os.environ.get("BUNDLER_UPDATE_SNAPSHOTS") == "1"


def _blocked(fleet: Fleet) -> AnalysisReport:
    """One waiting job nobody matches, one offline idle worker, a tampered bundle."""
    assert fleet.jobs is not None
    fleet.jobs.jobs.append(
        job(
            "sleeper",
            id="e9",
            phase=JobPhase.UNASSIGNED,
            native_state="CREATED",
            assigned_worker=None,
            requirements=JobRequirements(labels={"zone": "mars"}),
        )
    )
    fleet.worker("w2").connection = ConnectionState.OFFLINE
    fleet.worker("w2").native_status = "offline"
    report = analyze(fleet.evidence())
    report.bundle.integrity = Integrity(
        status="tampered", problems=["checksum mismatch: evidence/jobs.json"]
    )
    return report


def _text(report: AnalysisReport) -> str:
    out = io.StringIO()
    render(report, "text", out, color=False, width=100)
    return out.getvalue()


def _check_snapshot(name: str, text: str) -> None:
    path = SNAPSHOTS / name
    if UPDATE or not path.exists():
        path.parent.mkdir(exist_ok=True)
        path.write_text(text)
    assert text == path.read_text(), f"{name} changed: rerun with BUNDLER_UPDATE_SNAPSHOTS=1"


def test_text_report_reads_top_down(fleet: Fleet) -> None:
    text = _text(_blocked(fleet))
    lines = text.splitlines()
    assert "BLOCKED — first failed layer: placement" in lines[1]
    order = [
        text.index("Integrity: TAMPERED"),
        text.index("Targets"),
        text.index("1. no worker · sleeper (e9) — BLOCKED at placement"),
        text.index("▶ placement"),
        text.index("Evidence"),
        text.index("evidence/jobs.json#/jobs/1/requirements"),
        text.index("Next steps"),
        text.index("Recovery acceptance"),
        text.index("2. w2 · no job — DEGRADED"),
    ]
    assert order == sorted(order)
    assert "blocked by placement" in text
    assert "zone=mars wanted, has zone=a" in text
    assert all(len(line) <= 100 for line in lines)
    _check_snapshot("blocked.txt", text)


def test_healthy_text_report_says_every_layer_passes(fleet: Fleet) -> None:
    text = _text(analyze(fleet.evidence()))
    assert "HEALTHY — every applicable layer passes" in text
    assert "Next steps" not in text
    assert "FAIL" not in text


def test_colour_follows_the_request(fleet: Fleet) -> None:
    report = analyze(fleet.evidence())
    out = io.StringIO()
    render(report, "text", out, color=True, width=100)
    assert "\x1b[" in out.getvalue()
    assert "\x1b[" not in _text(report)


def test_markdown_is_ticket_ready(fleet: Fleet) -> None:
    md = render_markdown(_blocked(fleet))
    assert md.startswith("# bundler analyze: **BLOCKED — first failed layer: placement**")
    assert "> **Warning:** Integrity: TAMPERED" in md
    assert "| 1 | blocked | — | sleeper | placement |" in md
    assert "| **placement** | **FAIL** | NO_MATCHING_WORKER:" in md
    assert "- `evidence/jobs.json#/jobs/1/requirements` — " in md
    assert "- [ ] exact intended placement and deployment identity — **failed**" in md
    _check_snapshot("blocked.md", md)


def test_markdown_cells_cannot_break_tables() -> None:
    assert cell("a | b\nc") == "a \\| b c"
    assert code("x`y") == "``x`y``"
    assert code("`x") == "`` `x ``"


def test_markdown_code_spans_show_their_text_without_backslashes() -> None:
    """A backslash inside a code span is shown as itself: escaping there wrote
    `` `lyftdata workers logs \\<worker-id\\>` `` into tickets."""
    assert cell("run `logs <id> --x` <b>") == "run `logs <id> --x` \\<b\\>"
    assert cell("`a|b` c|d") == "`a\\|b` c\\|d"  # a pipe still cannot end a table cell
    # A backtick run without a closing run of its length opens no span: the rest is escaped.
    assert cell("``x` **y**") == "``x` \\*\\*y\\*\\*"
    assert cell("`` a ` **b** ``") == "`` a ` **b** ``"


def test_json_is_valid_against_the_published_schema(fleet: Fleet) -> None:
    for report in (_blocked(fleet), analyze(fleet.evidence())):
        data = json.loads(render_json(report))
        jsonschema.validate(data, json.loads(SCHEMA.read_text()))
        assert data["schema"] == "bundler.analysis/1"
        assert AnalysisReport.model_validate(data) == report


def test_json_carries_the_contract_fields(fleet: Fleet) -> None:
    data = json.loads(render_json(_blocked(fleet)))
    assert data["verdict"] == "blocked"
    assert data["first_failed_layer"] == "placement"
    target = data["targets"][0]
    assert {"worker", "job", "layers"} <= set(target)
    layer = target["layers"][3]
    assert layer["name"] == "placement"
    assert layer["status"] == "fail"
    finding = layer["findings"][0]
    assert {"code", "message", "evidence"} <= set(finding)
    assert finding["evidence"][0]["member"] == "evidence/jobs.json"
    assert finding["evidence"][0]["pointer"] == "/jobs/1/requirements"


@pytest.mark.parametrize("fmt", ["text", "json", "markdown"])
def test_every_format_renders_an_empty_report(fmt: str) -> None:
    from bundler.analyze.api import EvidenceSet
    from bundler.source import MemorySource

    out = io.StringIO()
    render(analyze(EvidenceSet(MemorySource())), fmt, out, color=False, width=100)  # type: ignore[arg-type]
    assert "inconclusive" in out.getvalue().lower()


def test_an_unknown_check_above_the_failure_reads_not_reached_and_one_without_evidence_unknown(
    fleet: Fleet,
) -> None:
    from bundler.analyze.render._common import check_label
    from schemas import LayerStatus

    report = _blocked(fleet)
    target = report.targets[0]
    skipped = {r.name for r in target.layers if r.status is LayerStatus.SKIPPED}
    above = [c for c in target.acceptance if c.status == "unknown" and c.layer in skipped]
    assert above
    assert {check_label(c, target) for c in above} == {"not reached"}
    layer = above[0].layer
    for result in target.layers:
        if result.name == layer:
            result.status = LayerStatus.UNKNOWN
    check = next(c for c in target.acceptance if c.layer == layer)
    assert check.status == "unknown"
    assert check_label(check, target) == "unknown"


def test_a_long_acceptance_check_continues_under_its_own_text(fleet: Fleet) -> None:
    """A check longer than the terminal wrapped back to the first column, under the
    statuses, so the status column no longer read as one column."""
    out = io.StringIO()
    render(analyze(fleet.evidence()), "text", out, color=False, width=48)
    lines = out.getvalue().splitlines()
    start = lines.index("Recovery acceptance")
    block = lines[
        start + 1 : start
        + 1
        + next(i for i, line in enumerate(lines[start + 1 :]) if not line.startswith("  "))
    ]
    statuses = [line for line in block if line[2:3] != " "]
    continued = [line for line in block if line[2:3] == " "]
    assert len(statuses) == 7
    assert continued  # at 48 columns, the guide's longer checks wrap
    assert all(line.startswith(" " * 14) and line[14] != " " for line in continued), block
    assert all(line == line.rstrip() for line in block)
