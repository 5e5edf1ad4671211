"""The worker side of ``bundler redact``: what runs in each pool process (or in-process).

One task is one file. Pass one redacts it by rules and structure into an
encrypted hand-off file (deflated, for a bundle); pass two removes every
learned literal, into the output directory or, for a bundle, into the final
deflated stream. Each process rebuilds the redactor from the picklable
:class:`~bundler.redaction.tree.RedactConfig` plus what the coordinator
learned, so every worker makes the same tokens.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from redactors import BundleRedactor, MemberRefused

from ..archive.deflate import DeflateStats, deflate_in_background, inflate_raw, prefetched
from . import handoff
from .hashing import Hashed
from .walk import open_regular

if TYPE_CHECKING:
    from .tree import RedactConfig

READ_CHUNK = 1 << 20


@dataclass(frozen=True)
class Task:
    source: str
    stored: str
    handoff: str
    media_type: str
    size: int = 0
    deflate: bool = False
    """Pass one deflates its output (bundle output: the zip takes the stream as is)."""


_WORKER: dict[str, Any] = {}


def init_worker(config: RedactConfig, learned: list[Any] | None = None) -> None:
    redactor = config.redactor()
    if learned:
        redactor.import_learned(learned[0])
        if redactor.network is not None:
            redactor.network.import_names(learned[1])
    _WORKER["redactor"] = redactor
    _WORKER["config"] = config


def read_source(path: Path) -> Iterator[bytes]:
    with os.fdopen(open_regular(path), "rb") as handle:
        while chunk := handle.read(READ_CHUNK):
            yield chunk


def pass_one(task: Task) -> dict[str, Any]:
    """Worker: rules + structure over one file, output to an encrypted hand-off file."""
    redactor: BundleRedactor = _WORKER["redactor"]
    config: RedactConfig = _WORKER["config"]
    redactor.adopt_name(task.stored)
    refused = None
    deflated = None
    try:
        stream = redactor.transform(
            task.stored, read_source(Path(task.source)), media_type=task.media_type
        )
        if task.deflate:
            stats = DeflateStats()
            stream = deflate_in_background(stream, stats)
        handoff.write(Path(task.handoff), config.handoff_key, stream)
        if task.deflate:
            deflated = (stats.size, stats.sha256)
    except MemberRefused as exc:
        refused = (exc.reason, exc.detail)
        Path(task.handoff).unlink(missing_ok=True)
    except OSError as exc:
        refused = ("decode_error", f"unreadable: {exc.strerror}")
        Path(task.handoff).unlink(missing_ok=True)
    state = redactor.export_member(task.stored)
    state["refused"] = refused
    state["deflated"] = deflated
    return state


def pass_two(task: Task, target: str, state: str | None) -> dict[str, Any]:
    """Worker, directory output: literal propagation from the hand-off file into ``target``."""
    redactor: BundleRedactor = _WORKER["redactor"]
    config: RedactConfig = _WORKER["config"]
    redactor.adopt_name(task.stored, state)
    chunks = handoff.read(Path(task.handoff), config.handoff_key)
    final = redactor.finalize(task.stored, chunks, media_type=task.media_type)
    out = Path(target)
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("xb") as handle:
        for chunk in final:
            handle.write(chunk)
    Path(task.handoff).unlink(missing_ok=True)
    return redactor.export_member(task.stored)


def pass_two_deflated(
    task: Task, target: str, state: str | None, first: tuple[int, str]
) -> dict[str, Any]:
    """Worker, bundle output: keep pass one's deflated stream unless a literal is in it.

    Inflating and scanning costs a fraction of deflating again, and in a
    typical bundle no learned literal occurs where no rule already caught it:
    the stream is then kept as it is (after checking it still inflates to the
    size and sha256 pass one hashed). Otherwise the member goes through
    ``finalize`` and is deflated again into ``target``.
    """
    redactor: BundleRedactor = _WORKER["redactor"]
    key = _WORKER["config"].handoff_key
    redactor.adopt_name(task.stored, state)
    source = Path(task.handoff)
    hashed = Hashed(inflate_raw(handoff.read(source, key)))
    with closing(prefetched(hashed)) as plain:  # decrypt, inflate, hash beside the scan
        changes = redactor.finalize_changes(task.stored, plain)
    if not changes:
        if hashed.finish() != first:
            raise handoff.HandoffError("a redacted member does not inflate to what was hashed")
        output, (size, sha256) = task.handoff, first
    else:
        stats = DeflateStats()
        final = redactor.finalize(
            task.stored, inflate_raw(handoff.read(source, key)), media_type=task.media_type
        )
        handoff.write(Path(target), key, deflate_in_background(final, stats))
        source.unlink(missing_ok=True)
        output, size, sha256 = target, stats.size, stats.sha256
    result = redactor.export_member(task.stored)
    result.update(output=output, size=size, sha256=sha256)
    return result
