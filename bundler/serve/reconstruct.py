"""Requests of bundles written before ``CollectorOutcome.http``: rebuilt from the profile's plan.

A collector id names its plan step (``http.workers``) and, for a fan-out, the
expansion index (``http.worker.003``). The fan-out's bound values are found
the way collection found them: the parent step's stored documents, in index
order, expanded with the same :func:`~bundler.collect.validate.expand`. A
value redaction changed in the parent is changed in the rebuilt path too;
such a route simply does not match what a client asks. A parent document is parsed as
every reader parses one (:func:`~bundler.source.read_json`: the JSON cap, checked before
it is read, and the nesting, text and key checks): one it refuses rebuilds no route, as
a malformed one does, and the fan-out's requests are then answered as not captured.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from urllib.parse import urlencode

from schemas import CollectorOutcome, CollectorStatus, HttpExchange, Manifest

from ..collect.errors import Skip
from ..collect.plan import HttpStep
from ..collect.templates import quote_path_value, render
from ..collect.validate import expand
from ..products.base import Profile
from ..source import MemberNotFound, MemberSource, read_json


def reconstruct_exchanges(
    outcomes: Sequence[CollectorOutcome],
    manifest: Manifest,
    source: MemberSource,
    profile: Profile | None,
) -> dict[str, HttpExchange]:
    """Collector id -> the request it most likely made (status left for the caller to infer)."""
    if profile is None:
        return {}
    steps = {step.id: step for step in profile.plan().http_steps()}
    rebuilt: dict[str, HttpExchange] = {}
    documents: dict[str, list[Any]] = {}
    for outcome in outcomes:
        located = _step_of(outcome.id, steps)
        if located is None:
            continue
        step, index = located
        bound: dict[str, str] = {}
        if step.for_each is not None:
            parent = step.for_each.step
            if parent not in documents:
                documents[parent] = _parent_documents(parent, manifest, source)
            bindings, _ = expand(step.for_each, documents[parent])
            if index >= len(bindings):
                continue
            bound = bindings[index]
        try:
            path = render(step.path, {k: quote_path_value(v) for k, v in bound.items()})
            params = {k: render(v, bound) for k, v in step.params.items()}
        except Skip:
            continue
        rebuilt[outcome.id] = HttpExchange(path=path, query=urlencode(params))
    return rebuilt


def _step_of(collector_id: str, steps: dict[str, HttpStep]) -> tuple[HttpStep, int] | None:
    name = collector_id.removeprefix("http.")
    if name in steps:
        return steps[name], 0
    base, _, index = name.rpartition(".")
    if base in steps and index.isdigit():
        return steps[base], int(index)
    return None


def _parent_documents(parent: str, manifest: Manifest, source: MemberSource) -> list[Any]:
    """The parent step's parsed documents in index order, as collection kept them."""
    found: list[tuple[int, Any]] = []
    for outcome in manifest.collectors:
        name = outcome.id.removeprefix("http.")
        base, _, index = name.rpartition(".")
        if name == parent:
            position = 0
        elif base == parent and index.isdigit():
            position = int(index)
        else:
            continue
        if outcome.status is not CollectorStatus.OK or not outcome.members:
            continue
        try:
            found.append((position, read_json(source, outcome.members[0])))
        except (MemberNotFound, ValueError):  # JsonTooLarge and JsonRefused are ValueErrors
            continue
    return [doc for _, doc in sorted(found, key=lambda pair: pair[0])]
