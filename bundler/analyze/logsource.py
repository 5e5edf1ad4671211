"""Which copy of a worker's log a timeline event was read from, and the same line's twin.

A product may hold one worker log in two places: the file or journal read over SSH on the
worker host, and the lines the control plane returns through its API. A parser reads both
with one grammar and keeps one event per line; where the line is in both copies, the
event it keeps carries the other copy's event (:data:`COPY`), so a rule can say what each
copy last said and where the two disagree, and counts are not doubled.
"""

from __future__ import annotations

from .api import TimelineEvent

SOURCE = "source"
"""``TimelineEvent.detail`` key: the label of the copy the event was read from."""
COPY = "copy"
"""``TimelineEvent.detail`` key: the same line's event in the other copy, when both hold it."""

HOST_LOG = "the worker host's log"
API_LOG = "the worker log the control plane's API returned"
UNNAMED = "the worker's log"
"""The label of an event whose parser names no copy (a product with one source)."""


def source_of(event: TimelineEvent) -> str:
    """The label of the copy ``event`` was read from."""
    return str(event.detail.get(SOURCE) or UNNAMED)


def copies(event: TimelineEvent) -> list[TimelineEvent]:
    """``event`` and, when the other copy holds the same line, that copy's event."""
    twin = event.detail.get(COPY)
    return [event, twin] if isinstance(twin, TimelineEvent) else [event]
