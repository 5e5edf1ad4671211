"""Benchmark: what the HTML report adds to an analysis of a big fleet, in time and bytes.

Builds canonical evidence for ``--workers`` workers (the fleet of the overview
tests, ``tests/support/big_fleet.py``: most offline, some unhealthy, paused or
stale) and a timeline of registrations, claims, STALE and evictions for each,
then times, in this process: the analysis (``run_analysis``), ``render_json``
and ``render_html``, and prints the sizes. Run:
``.venv/bin/python bench/html_report.py --workers 1000 [--repeat 3]``.
"""

from __future__ import annotations

import argparse
import sys
import time
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def events(workers: int):  # type: ignore[no-untyped-def]
    from bundler.analyze.api import TimelineEvent
    from tests.support.evidence import T0

    line = 0
    for n in range(1, workers + 1):
        name = f"w{n:04d}"
        plan = [("registered", -1800 + n)] + [
            ("claimed", -1500 + 200 * k + n % 50) for k in range(5)
        ]
        if n <= workers * 0.624:
            plan += [("stale", -760 - n % 180), ("evicted", -750 - n % 180)]
        for kind, seconds in plan:
            line += 1
            at = T0 + timedelta(seconds=seconds)
            yield TimelineEvent(
                kind=kind,
                member="hosts/h01/logs/00.log",
                line=line,
                text=f"{at:%Y-%m-%d %H:%M:%S} - flux.server - INFO - Worker {name} {kind}",
                at=at,
                worker=name,
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3, help="runs (best kept)")
    args = parser.parse_args()
    from bundler.analyze.engine import run_analysis
    from bundler.analyze.render import render_json
    from bundler.analyze.render.html import render_html
    from tests.support.big_fleet import big_fleet
    from tests.support.evidence import StubProfile

    fleet = big_fleet(args.workers, everything_failing=True)
    timeline = list(events(args.workers))
    best: dict[str, float] = {}
    sizes: dict[str, int] = {}
    for _ in range(args.repeat):
        started = time.perf_counter()
        done = run_analysis(fleet.evidence(), profile=StubProfile(events=timeline))  # type: ignore[arg-type]
        analysed = time.perf_counter()
        sizes["json"] = len(render_json(done.report).encode())
        jsoned = time.perf_counter()
        sizes["html"] = len(render_html(done.report, done.timeline).encode())
        htmled = time.perf_counter()
        for label, seconds in (
            ("analysis", analysed - started),
            ("render_json", jsoned - analysed),
            ("render_html", htmled - jsoned),
        ):
            best[label] = min(best.get(label, float("inf")), seconds)
    print(f"{args.workers} workers, {len(timeline)} timeline events; best of {args.repeat}")
    print(f"analysis     {best['analysis']:6.2f} s")
    print(f"render_json  {best['render_json']:6.2f} s  {sizes['json'] / 1024:7.0f} KiB")
    print(f"render_html  {best['render_html']:6.2f} s  {sizes['html'] / 1024:7.0f} KiB")


if __name__ == "__main__":
    main()
