"""The manifest as sealing writes it: its two long lists made one record at a time.

At 1,000 hosts a manifest lists ~10,600 members and ~10,500 collectors. Built as one
:class:`~schemas.Manifest`, every one of those records was a pydantic model alive at
once, beside the compact rows the run held them as (:class:`~.stored.StoredMember`,
the collectors' settled outcomes), through the write, the post-write check of every
member and the rename: doctor's peak. :class:`ManifestDraft` holds the manifest without
those lists plus where they come from; :meth:`~ManifestDraft.chunks` writes it, each
record made, dumped and let go in turn, byte for byte the one-call dump of the whole
model; :meth:`~ManifestDraft.complete` builds the whole model for a caller that asks
(:attr:`.finalizing.SealedBundle.manifest`), with what was written.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

from schemas import CollectorOutcome, Manifest

from .manifest_json import manifest_chunks
from .stored import StoredMember


class ManifestDraft:
    """A manifest whose ``members`` and ``collectors`` are made as they are written."""

    def __init__(
        self,
        shell: Manifest,
        members: Sequence[StoredMember],
        collectors: Sequence[CollectorOutcome],
        redact: Callable[[str], str],
    ) -> None:
        if shell.members or shell.collectors:
            raise ValueError("a manifest draft's shell has its lists empty")
        self.shell = shell
        self._members = members
        self._collectors = collectors
        self._redact = redact
        self._redacted: dict[int, CollectorOutcome] | None = None
        """The collectors a last redaction pass changed, by position (few): what was
        written, so :meth:`complete` gives exactly that without redacting again."""

    def chunks(self) -> Iterator[bytes]:
        """The manifest's ``indent=2`` JSON in pieces (see :mod:`.manifest_json`)."""
        self._redacted = {}
        return manifest_chunks(
            self.shell,
            members=(member.to_schema() for member in self._members),
            collectors=self._written_collectors(self._redacted),
        )

    def complete(self) -> Manifest:
        """The whole manifest as a model: every record made, as written."""
        redacted = self._redacted
        if redacted is None:  # not written yet: redact now, as chunks() would
            collectors = list(self._written_collectors({}))
        else:
            collectors = [redacted.get(i, c) for i, c in enumerate(self._collectors)]
        return self.shell.model_copy(
            update={
                "members": [member.to_schema() for member in self._members],
                "collectors": collectors,
            }
        )

    def _written_collectors(
        self, changed: dict[int, CollectorOutcome]
    ) -> Iterator[CollectorOutcome]:
        for index, outcome in enumerate(self._collectors):
            final = redact_outcome(outcome, self._redact)
            if final is not outcome:
                changed[index] = final
            yield final


def redact_outcome(outcome: CollectorOutcome, redact: Callable[[str], str]) -> CollectorOutcome:
    """``outcome`` with its message and note redacted once more; itself when nothing changed
    (a copy of each of a fleet's ~10,000 outcomes was 6 MB at doctor's peak)."""
    update = {}
    for field in ("error_message", "note"):
        value = getattr(outcome, field)
        if isinstance(value, str) and (redacted := redact(value)) != value:
            update[field] = redacted
    return outcome.model_copy(update=update) if update else outcome
