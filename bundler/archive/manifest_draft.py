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
from typing import TypeVar

from pydantic import BaseModel

from schemas import CollectorOutcome, Manifest, TargetSummary

from ..stringmap import map_strings
from .manifest_json import manifest_chunks
from .stored import StoredMember


class ManifestDraft:
    """A manifest whose ``members`` and ``collectors`` are made as they are written."""

    def __init__(
        self,
        shell: Manifest,
        members: Sequence[StoredMember],
        collectors: Sequence[CollectorOutcome],
        finalize: Callable[[str], str],
    ) -> None:
        if shell.members or shell.collectors:
            raise ValueError("a manifest draft's shell has its lists empty")
        self.shell = shell
        self._members = members
        self._collectors = collectors
        self._finalize = finalize
        """The transform's second pass over a text (``finalize_text``): the collectors'
        strings were redacted once already, by the collection's recorder."""
        self._redacted: dict[int, CollectorOutcome] | None = None
        """The collectors the second pass changed, by position (few): what was written,
        so :meth:`complete` gives exactly that without passing over them again."""

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
        if redacted is None:  # not written yet: finalize now, as chunks() would
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
            final = redact_outcome(outcome, self._finalize)
            if final is not outcome:
                changed[index] = final
            yield final


OWN_FIELDS: frozenset[str] = frozenset(
    {"id", "kind", "target", "status", "error_class", "step", "members", "http.method"}
)
"""The collector outcome's fields bundler writes itself, which redaction leaves as they are.

Ids, the plan's step ids and path templates, host aliases (positional, ``h01``), statuses
and error class names come from the plan and the engine, never from the remote side;
``members`` are member names, already redacted as names (and they must stay the names
the manifest's member list has). Every *other* string an outcome holds (nested ones,
mapping values and list items too) is redacted once by the collection's recorder when
the collector settles, and passed over once more at sealing by :func:`redact_outcome`
with the transform's second pass (``finalize_text``: values learned since), so a field
added to :class:`~schemas.CollectorOutcome` later gets that pass unless it is named here:
a server's worker ids in ``bound``, its ``Content-Type`` in ``http.content_type`` were
written verbatim while only the message and note were redacted."""


def redact_outcome(outcome: CollectorOutcome, redact: Callable[[str], str]) -> CollectorOutcome:
    """``outcome`` with every string not in :data:`OWN_FIELDS` passed through ``redact``;
    itself when nothing changed (a copy of each of a fleet's ~10,000 outcomes was 6 MB at
    doctor's peak). Mapping keys are kept: redaction replaces values, never keys."""
    return redact_record(outcome, redact)


M = TypeVar("M", bound=BaseModel)


TARGET_OWN_FIELDS: frozenset[str] = frozenset(
    {"hosts.alias", "hosts.role", "hosts.transport", "hosts.host_key_fingerprint"}
)
"""The manifest's ``target`` fields bundler writes itself: positional aliases, roles,
transports, and the public fingerprint of a host key. The server URL, the hosts'
addresses and worker names are the customer's (``--server``, ``--ssh``, the inventory)
and are redacted like the members: ``--keyword`` and ``--obfuscate network`` reach them
(the schema always said an address was pseudonymized; it was written as given)."""


def redact_target(target: TargetSummary, redact: Callable[[str], str]) -> TargetSummary:
    """``target`` with every string not in :data:`TARGET_OWN_FIELDS` redacted."""
    return redact_record(target, redact, own=TARGET_OWN_FIELDS)


def redact_record(
    record: M, redact: Callable[[str], str], prefix: str = "", own: frozenset[str] = OWN_FIELDS
) -> M:
    """``record`` with its strings redacted, fields named in ``own`` (by their dotted path
    from the top record, ``prefix`` included) left as they are; itself if unchanged."""
    return map_strings(record, redact, keep=own, prefix=prefix)
