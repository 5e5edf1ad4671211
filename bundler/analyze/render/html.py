"""The HTML report: one self-contained file to open from disk or attach to a ticket.

Same story as the text report (verdict and first failed layer, fleet overview,
each target's ladder with cited evidence, next steps and acceptance), plus
what only a page can show well: the per-worker timeline as inline SVG, the
collectors and the redaction summary by kind.

Safety is structural, not a matter of care at each call site:

* Jinja2 with autoescaping on every template, so every string from a bundle
  (worker names, labels, log lines) is text, never markup; nothing is marked
  safe except the stylesheet, which is ours;
* no URL is ever built from bundle data (links are ``#target-N`` anchors);
* a Content-Security-Policy meta tag allows nothing but the one inline
  stylesheet, by its hash: no script, no image, no font, no request at all.
  The page needs no script: ``<details>`` expands and collapses, and the SVG
  marks' ``<title>`` gives each mark's source line on hover.
"""

from __future__ import annotations

import base64
import hashlib
import re
from collections import Counter
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape
from markupsafe import Markup, escape

from schemas import (
    REDACTION_REPORT_MEMBER,
    AnalysisReport,
    CollectorOutcome,
    CollectorStatus,
    Finding,
    Manifest,
    RedactionReport,
)
from schemas.manifest import FAILED_STATUSES

from ...jsondoc import JsonRefused
from ...plurals import counted, plural
from ...printable import printable
from ...source import JsonTooLarge, MemberNotFound, MemberSource, read_json
from ...timetext import formatted
from ..api import Timeline
from ..overview import main_finding
from . import _common as common
from . import _fleet as fleet
from ._steps import next_steps, said_once
from .timeline import build as build_timeline

MAX_OK_COLLECTORS = 400
"""Collectors that ended ok past this many are counted, not listed."""
MAX_PROBLEM_GROUPS = 100
"""Rows for collectors that did not end ok (one per distinct problem); the rest are counted."""
MAX_REDACTION_KINDS = 100
"""Redaction kinds (and pseudonym kinds) past this many, by count, are counted, not listed."""
WORKER_ROWS_OPEN = 30
"""Up to this many workers the overview table is open; beyond, it is one click away."""


@dataclass(frozen=True)
class CollectorProblem:
    """Collectors that ended the same way, not ok: one row however many hosts it hit.

    A 1,000-host bundle skips thousands of collectors for one reason (a variable
    the hosts lack); one row per collector made the page megabytes of the same line.
    """

    status: CollectorStatus
    error: str
    ids: tuple[str, ...]
    longest_s: float
    bytes: int

    @property
    def blocked(self) -> bool:
        return self.status in FAILED_STATUSES


def collector_problems(collectors: list[CollectorOutcome]) -> list[CollectorProblem]:
    """The collectors that did not end ok, grouped by status and error text: failures first,
    then the biggest groups."""
    groups: dict[tuple[CollectorStatus, str], list[CollectorOutcome]] = {}
    for outcome in collectors:
        if outcome.status is CollectorStatus.OK:
            continue
        said = ": ".join(t for t in (outcome.error_class, outcome.error_message) if t)
        error = " ".join(t for t in (said, f"({outcome.note})" if outcome.note else "") if t)
        groups.setdefault((outcome.status, error), []).append(outcome)
    problems = [
        CollectorProblem(
            status,
            error,
            tuple(o.id for o in members),
            max(o.duration_s for o in members),
            sum(o.bytes for o in members),
        )
        for (status, error), members in groups.items()
    ]
    return sorted(problems, key=lambda p: (not p.blocked, -len(p.ids)))


@dataclass(frozen=True)
class RedactionTotals:
    """What was redacted, by kind; never a value (the report holds none).

    ``by_kind`` and ``pseudonyms`` hold at most :data:`MAX_REDACTION_KINDS`
    rows, the largest first; the ``*_more`` fields count what was left out, so
    the page says so. A real ruleset has a few dozen kinds, but the report is
    bundle data: 300,000 made-up kinds would otherwise be a 22 MB table.
    """

    total: int
    by_kind: list[tuple[str, int]]
    files_with_hits: int
    files: int
    skipped: list[tuple[str, int]]
    pseudonyms: list[tuple[str, int]]
    by_kind_more: int = 0
    """Kinds beyond the first :data:`MAX_REDACTION_KINDS`, counted, not listed."""
    pseudonyms_more: int = 0
    """Pseudonym kinds beyond the first :data:`MAX_REDACTION_KINDS`."""


@dataclass(frozen=True)
class BundleExtras:
    """What the HTML report shows beyond the analysis: collectors and redaction."""

    collectors: list[CollectorOutcome] = field(default_factory=list)
    redaction: RedactionTotals | None = None
    redaction_problem: str | None = None


def bundle_extras(source: MemberSource, manifest: Manifest | None) -> BundleExtras:
    """Read the manifest's collectors and the redaction report's counts from the bundle.

    The report is read as every bundle document is (:func:`read_json`: size and
    nesting capped, a lone surrogate refused), then validated; what is wrong with
    it is named without quoting it (a validation error would echo the input).
    """
    collectors = list(manifest.collectors) if manifest is not None else []
    if not source.has(REDACTION_REPORT_MEMBER):
        return BundleExtras(collectors, None, f"{REDACTION_REPORT_MEMBER} is not in the bundle")
    try:
        report = RedactionReport.model_validate(read_json(source, REDACTION_REPORT_MEMBER))
    except MemberNotFound as exc:  # present, but failed verification
        return BundleExtras(collectors, None, f"{REDACTION_REPORT_MEMBER} is unreadable ({exc})")
    except (JsonRefused, JsonTooLarge) as exc:
        return BundleExtras(collectors, None, str(exc))
    except ValueError as exc:
        problem = f"{REDACTION_REPORT_MEMBER} is unreadable ({type(exc).__name__})"
        return BundleExtras(collectors, None, problem)
    skipped = Counter(s.reason for s in report.skipped)
    by_kind = sorted(report.by_kind.items(), key=lambda kv: (-kv[1], kv[0]))
    pseudonyms = sorted(report.pseudonyms.items(), key=lambda kv: (-kv[1], kv[0]))
    return BundleExtras(
        collectors,
        RedactionTotals(
            total=report.total,
            by_kind=by_kind[:MAX_REDACTION_KINDS],
            files_with_hits=sum(1 for f in report.files if f.by_kind or f.hits),
            files=len(report.files),
            skipped=sorted(skipped.items()),
            pseudonyms=pseudonyms[:MAX_REDACTION_KINDS],
            by_kind_more=max(0, len(by_kind) - MAX_REDACTION_KINDS),
            pseudonyms_more=max(0, len(pseudonyms) - MAX_REDACTION_KINDS),
        ),
    )


def _shown(value: Any) -> Any:
    """Every ``{{ value }}`` of a page: bundle text with bidi, zero-width and controls visible.

    Autoescaping stops markup; this stops a right-to-left override reversing a
    status word or a zero-width space making two workers look like one. Our
    own ``Markup`` (the stylesheet) and enum values are left alone.
    """
    return printable(value, keep="\n") if type(value) is str else value


_CODE_SPAN = re.compile(r"`([^`\n]+)`")


def _code_spans(text: str) -> Markup:
    """``text`` with its backquoted spans set as ``<code>``: the recovery paths quote the
    commands to run that way (`` `lyftdata workers logs <worker-id>` ``), which a page showed
    with the backquotes. Every part is escaped and made printable as ``{{ }}`` would make it,
    so a backquote in a worker's name changes how it looks, never what the page runs."""
    parts, cursor = [], 0
    for span in _CODE_SPAN.finditer(text):
        parts.append(escape(_shown(text[cursor : span.start()])))
        parts.append(Markup("<code>%s</code>") % _shown(span[1]))
        cursor = span.end()
    parts.append(escape(_shown(text[cursor:])))
    return Markup("").join(parts)


@cache
def _environment() -> Environment:
    env = Environment(
        loader=PackageLoader("bundler.analyze.render", "templates"),
        autoescape=select_autoescape(default=True, default_for_string=True),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        finalize=_shown,
    )
    env.globals.update(
        headline=common.headline,
        counts=common.counts,
        provenance=common.provenance,
        integrity_lines=common.integrity_lines,
        layer_note=common.layer_note,
        cited=common.cited,
        next_steps=lambda target: said_once(next_steps(target)),
        check_label=common.check_label,
        target_title=common.target_title,
        target_state=common.target_state,
        others_line=fleet.others_line,
        overview_title=fleet.overview_title,
        worker_state=fleet.worker_state,
        worker_verdict=fleet.worker_verdict,
        worker_finding=fleet.worker_finding,
        group_detail=fleet.group_detail,
        labels_text=fleet.labels_text,
        slots_text=fleet.slots_text,
        age=fleet.age,
        STATUS_LABEL=common.STATUS_LABEL,
        NOT_REACHED=common.NOT_REACHED,
        WORKER_ROWS_OPEN=WORKER_ROWS_OPEN,
    )
    env.filters["size"] = _size
    env.filters["code_spans"] = _code_spans  # ``{{ step|code_spans }}``
    env.filters["counted"] = counted  # ``{{ n|counted('file') }}``: 1 file, 2 files
    env.filters["plural"] = plural  # ``{{ n|plural('is', 'are') }}``
    env.filters["timefmt"] = formatted  # strftime with a four-digit year (timetext)
    return env


@cache
def stylesheet() -> str:
    return resources.files(__package__).joinpath("templates/report.css").read_text("utf-8")


def content_security_policy(css: str) -> str:
    """Nothing but our one stylesheet, allowed by its hash."""
    digest = base64.b64encode(hashlib.sha256(css.encode()).digest()).decode()
    return (
        "default-src 'none'; "
        f"style-src 'sha256-{digest}'; "
        "script-src 'none'; img-src 'none'; font-src 'none'; connect-src 'none'; "
        "base-uri 'none'; form-action 'none'"
    )


def render_html(
    report: AnalysisReport, timeline: Timeline | None = None, extras: BundleExtras | None = None
) -> str:
    """The whole page as one string (a few hundred KB at most for a big fleet)."""
    extras = extras or BundleExtras()
    problems = collector_problems(extras.collectors)
    ok = [c for c in extras.collectors if c.status is CollectorStatus.OK]
    tally = Counter(c.status.value for c in extras.collectors)
    return render_page(
        "report.html.j2",
        tool_version=report.tool_version,
        report=report,
        groups=fleet.target_groups(report),
        main=lead_finding(report),
        compact=fleet.compact(report),
        overview=report.fleet,
        grouped=report.fleet is not None and fleet.grouped(report.fleet),
        timeline=build_timeline(report, timeline),
        collector_problems=problems[:MAX_PROBLEM_GROUPS],
        collector_problems_more=sum(len(p.ids) for p in problems[MAX_PROBLEM_GROUPS:]),
        collectors_ok=ok[:MAX_OK_COLLECTORS],
        collectors_ok_more=max(0, len(ok) - MAX_OK_COLLECTORS),
        collectors_bytes=sum(c.bytes for c in extras.collectors),
        collectors_tally=", ".join(f"{n:,} {status}" for status, n in tally.most_common()),
        extras=extras,
    )


def lead_finding(report: AnalysisReport) -> Finding | None:
    """The finding the page leads with: the main finding of the first target at the failure."""
    for target in report.targets:
        if target.first_failed_layer is not None and target.first_failed_layer == (
            report.first_failed_layer
        ):
            code = main_finding(target)
            layer = next(r for r in target.layers if r.name is target.first_failed_layer)
            return next((f for f in layer.findings if f.code == code), None)
    for target in report.targets:
        code = main_finding(target)
        if code is not None:
            return next(f for r in target.layers for f in r.findings if f.code == code)
    return None


def render_page(template: str, **context: Any) -> str:
    """Render one of our page templates with the stylesheet inline and its CSP by hash.

    The one place a page is made, so every page (``analyze``'s, ``diff``'s)
    gets the same policy and escaping.
    """
    css = stylesheet()
    return (
        _environment()
        .get_template(template)
        .render(
            css=Markup(css),  # noqa: S704 (our own stylesheet, from the package, never bundle data)
            csp=content_security_policy(css),
            **context,
        )
    )


def _size(n: int) -> str:
    value = float(n)
    for unit in ("B", "KiB", "MiB"):
        if value < 1024 or unit == "MiB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} GiB"
