"""A skewed worker's log lines on the timeline: where they happened, and what they say.

A worker whose clock is off writes its log on that clock (Flux never compares clocks). Drawn
at their stamps, a worker two hours ahead lost its connection two hours after the server
evicted it, and its lane's states ran on past collection. What a support engineer needs:

* with the offset bounded both ways, each line drawn where it happened on the server's
  clock (the middle of its span, :func:`bundler.analyze.worker_clock.placed`), its hover
  text giving the stamp as written and the span on the server's clock;
* with one bound only, the line drawn at its stamp (there is no place to draw it), its hover
  text and the lane saying the clock is off and by at least how much;
* one sentence per such worker under the timeline, so no one reads a mark's x as its time
  without knowing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from schemas.evidence import ClockOffset

from ..api import Timeline, TimelineEvent
from ..worker_clock import described, is_bounded, off_by

CLOCK_NOTE = "clock_note"
"""The ``detail`` key of a drawn copy of an event: what its stamp is on the server's clock."""


def on_server_clock(
    timeline: Timeline | None, events: Sequence[TimelineEvent]
) -> tuple[list[TimelineEvent], dict[str | None, ClockOffset]]:
    """``events`` as drawn: a skewed worker's lines as copies placed on the server's clock
    (:meth:`Timeline.placed`), each with its stamp described; and each such worker's offset."""
    if timeline is None or not timeline.clocks:
        return list(events), {}
    drawn: list[TimelineEvent] = []
    skewed: dict[str | None, ClockOffset] = {}
    for event in events:
        offset = timeline.clock_of(event)
        if offset is None or event.at is None:
            drawn.append(event)
            continue
        skewed.setdefault(event.worker, offset)
        note = f"stamped {described(event.at, offset, event.worker)}"
        detail = {**event.detail, CLOCK_NOTE: note}
        drawn.append(replace(event, at=timeline.placed(event), detail=detail))
    return drawn, skewed


def lane_note(offset: ClockOffset) -> str:
    """What a lane of a worker whose clock is off says beside its name."""
    if is_bounded(offset):
        return "clock off: lines drawn on the server's clock"
    return "clock off by an unbounded amount: lines drawn at their stamps"


def sentence(worker: str | None, offset: ClockOffset) -> str:
    """One line under the timeline for a worker whose clock is off."""
    who = worker or "A worker"
    least, most = offset.at_least_s, offset.at_most_s
    if least is not None and most is not None:
        width = (most - least) / 2
        way = "ahead of" if least > 0 else "behind"
        low, high = sorted((abs(least), abs(most)))
        return (
            f"{who}'s clock is {low:.0f} to {high:.0f} s {way} the server's: its log lines are "
            f"drawn where they happened on the server's clock (within ±{width:.0f} s); hover "
            "one for its stamp as written."
        )
    return (
        f"{who}'s clock is off ({off_by(offset)}), by an amount the bundle does "
        "not bound: its log lines are drawn at their stamps, which are not the server's time."
    )
