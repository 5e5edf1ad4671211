"""Which copy of a worker's log a timeline event was read from, and the same line's twins.

A product may hold one worker log in several places: the file or journal read over SSH on
the worker host, the lines the control plane returns through its API, and its own CLI's
output captured on a host. A parser reads them with one grammar and keeps one event per
line; where several copies hold the line, the event it keeps carries the others' events
(:data:`COPY`), so a rule can say what each copy last said and where they disagree, and
counts are not doubled.
"""

from __future__ import annotations

from collections.abc import Sequence

from .api import TimelineEvent

SOURCE = "source"
"""``TimelineEvent.detail`` key: the label of the copy the event was read from."""
COPY = "copy"
"""``TimelineEvent.detail`` key: the same line's events in the other copies that hold it (a
tuple of events)."""

HOST_LOG = "the worker host's log"
API_LOG = "the worker log the control plane's API returned"
UNNAMED = "the worker's log"
"""The label of an event whose parser names no copy (a product with one source)."""


def source_of(event: TimelineEvent) -> str:
    """The label of the copy ``event`` was read from."""
    return str(event.detail.get(SOURCE) or UNNAMED)


def copies(event: TimelineEvent) -> list[TimelineEvent]:
    """``event`` and the same line's event in each other copy that holds it."""
    twins = event.detail.get(COPY, ())
    return [event, *(t for t in twins if isinstance(t, TimelineEvent))]


def named(events: Sequence[TimelineEvent]) -> str:
    """The copies ``events`` were read from, as a sentence names them: "A, B and C"."""
    labels = list(dict.fromkeys(source_of(event) for event in events))
    return ", ".join(labels[:-1]) + " and " + labels[-1] if len(labels) > 1 else labels[0]
