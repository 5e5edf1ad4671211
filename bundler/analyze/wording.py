"""Naming many workers in one message: together, by what they have in common.

A fleet of 1,000 workers that all miss a label used to be named one by one
("fw0001: zone=mars wanted, has zone=b; fw0002: ...; and 992 more"): eight
names, and nothing about the other 992. Grouped by reason, one line says how
the whole fleet stands ("fw0001, fw0003, fw0005 and 495 more: zone=mars
wanted, has zone=b; fw0002, fw0004, fw0006 and 494 more: ... has zone=a").
A finding's JSON details keep every worker; this is only how a message reads.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from ..plurals import counted as counted
from ..plurals import plural as plural

NAMES_PER_GROUP = 3
"""Workers named per group; the rest are counted."""
NAMES_LISTED = 8
"""Workers named in a plain list (``can run on w1, w2, ...``); the rest are counted."""
CITED = 8
"""Citations a finding gives for a list of workers: a few to open, not one per worker."""
GROUPS_SHOWN = 6
"""Groups named per message; the workers of the others are counted."""


def grouped(pairs: Iterable[tuple[str, str]]) -> list[tuple[str, list[str]]]:
    """``(reason, workers)`` for each distinct reason, the biggest group first (a tie keeps
    the order the reasons were first seen in)."""
    groups: dict[str, list[str]] = {}
    for worker, reason in pairs:
        groups.setdefault(reason, []).append(worker)
    return sorted(groups.items(), key=lambda item: -len(item[1]))


def some_names(workers: Sequence[str], shown: int = NAMES_PER_GROUP) -> str:
    """``w1, w2, w3 and 7 more``."""
    rest = len(workers) - shown
    return ", ".join(workers[:shown]) + (f" and {rest} more" if rest > 0 else "")


def listed_names(workers: Sequence[str]) -> str:
    """A plain list of workers in a message: ``w1, w2, ... w8 and 972 more``."""
    return some_names(workers, NAMES_LISTED)


def by_reason(per_worker: Mapping[str, Sequence[str]]) -> str:
    """``w1: a, b; w2, w3, w4 and 5 more: c``: workers with the same reasons named together."""
    groups = grouped((worker, ", ".join(why)) for worker, why in per_worker.items())
    return _joined(f"{some_names(workers)}: {reason}" for reason, workers in groups) + _hidden(
        groups
    )


def with_detail(pairs: Iterable[tuple[str, str]]) -> str:
    """``w1, w2 and 3 more (has zone=a); w3 (has zone=b)``: workers grouped by a detail."""
    groups = grouped(pairs)
    return _joined(f"{some_names(workers)} ({detail})" for detail, workers in groups) + _hidden(
        groups
    )


def _joined(parts: Iterable[str]) -> str:
    return "; ".join(part for _, part in zip(range(GROUPS_SHOWN), parts, strict=False))


def _hidden(groups: list[tuple[str, list[str]]]) -> str:
    rest = groups[GROUPS_SHOWN:]
    if not rest:
        return ""
    workers = sum(len(names) for _, names in rest)
    return f"; and {counted(workers, 'more worker')} for {counted(len(rest), 'other reason')}"
