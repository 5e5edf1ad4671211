"""Sharing what one redactor learned with another (``bundler redact`` runs a process pool).

Workers share the bundle's HMAC key, so their tokens agree; what differs is
what each learned. The coordinator imports every worker's learned literals,
network names, per-member records, skipped files and the pseudonyms made
(counted by keyed identity, never by value), so pass two and the report see
the whole bundle.

Each export carries only what the process learned since its previous export
(and a pool worker starts counting after the coordinator's literals it was
given): a worker does many members in turn, and exporting everything learned
so far with every member made the coordinator re-import the same values
members x values times, the quadratic half of a big bundle's pass two.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import islice
from typing import TYPE_CHECKING, Any

from .report import MemberRecord

if TYPE_CHECKING:
    from .literals import LiteralSet
    from .network import NetworkPseudonymizer
    from .report import ReportBuilder
    from .tokens import Tokenizer


class SharedState:
    """Mixed into :class:`~redactors.bundle.BundleRedactor`."""

    literals: LiteralSet
    network: NetworkPseudonymizer | None
    builder: ReportBuilder
    tokens: Tokenizer
    _names: dict[str, str]
    _state: dict[str, str]
    _exported: tuple[int, int, int, int] = (0, 0, 0, 0)
    """How many learned literals, network names, map entries and pseudonyms made were
    already exported."""

    def adopt_name(self, stored: str, state: str | None = None) -> None:
        """Treat ``stored`` as a final member name (another process redacted it).

        ``state`` is what pass one recorded for it (``text``, ``gzip``,
        ``binary``), so pass two in another process treats it the same way.
        """
        self._names[stored] = stored
        if state is not None:
            self._state[stored] = state

    def forget_member(self, stored: str) -> None:
        """Drop what this process recorded for ``stored`` (not what it learned).

        A worker process may redact several segments of one member in turn;
        each export must hold only its own segment's hits, or the coordinator
        would count the earlier ones twice.
        """
        self.builder.members.pop(stored, None)

    def store_as(self, source: str, stored: str) -> None:
        """Store source file ``source`` as ``stored`` (its redacted name was another's)."""
        self._names[source] = stored
        self.builder.member(stored).name_redacted = True

    def rename_member(self, old: str, new: str) -> None:
        """Move everything recorded under stored name ``old`` to ``new`` (its record, its
        pass-one state, its skipped entry, the source names that map to it)."""
        record = self.builder.members.pop(old, None)
        if record is None:
            record = MemberRecord(new)
        record.member, record.name_redacted = new, True
        self.builder.members[new] = record
        if old in self._state:
            self._state[new] = self._state.pop(old)
        for source, stored in list(self._names.items()):
            if stored == old:
                self._names[source] = new
        self.builder.skipped = [
            s.model_copy(update={"member": new}) if s.member == old else s
            for s in self.builder.skipped
        ]

    def member_state(self, stored: str) -> str | None:
        """What pass one recorded for ``stored`` (``text``, ``gzip``, ``binary``), if anything."""
        return self._state.get(stored)

    def export_member(self, stored: str) -> dict[str, Any]:
        """What this process learned from one member, for the coordinating process."""
        return {
            "stored": stored,
            "state": self._state.get(stored),
            "record": self.builder.members.get(stored),
            "skipped": [s for s in self.builder.skipped if s.member == stored],
            **self._new_learning(),
        }

    def _new_learning(self) -> dict[str, Any]:
        """What was learned since the previous export (then counted as exported)."""
        literals, names, mapping, made = self._exported
        learned = self.literals.learned_since(literals)
        network = self.network.export_names()[names:] if self.network else []
        new_map = dict(islice(self.tokens.map_items(), mapping, None))
        pseudonyms = self.network.export_made(made) if self.network else []
        self._exported = (
            literals + len(learned),
            names + len(network),
            mapping + len(new_map),
            made + len(pseudonyms),
        )
        return {"learned": learned, "names": network, "map": new_map, "pseudonyms": pseudonyms}

    def mark_exported(self) -> None:
        """Count everything known now as exported (a pool worker, after its initial import)."""
        self._new_learning()

    def import_member(self, state: dict[str, Any], *, line_offset: int = 0) -> None:
        """Merge what :meth:`export_member` exported in another process.

        For one segment of a member, ``line_offset`` is the number of lines
        before the segment; its content hash is then only a part's, so it is
        not taken (the caller hashes the whole member and records it).
        """
        stored = state["stored"]
        if state["state"] is not None:
            self._state[stored] = state["state"]
        record = state["record"]
        if record is not None:
            mine = self.builder.member(stored)
            mine.merge(record, line_offset=line_offset)
            if record.sha256 is not None and not state.get("segment"):
                mine.sha256, mine.size = record.sha256, record.size
        for skipped in state["skipped"]:
            self.builder.skip(skipped.member, skipped.reason, skipped.detail, kept=skipped.kept)
        self.import_learning(state)

    def import_learning(self, state: dict[str, Any]) -> None:
        """Only what an export learned: for a state whose member record is not used (a
        segment redacted again whole), since no later export of that process repeats it."""
        self.import_learned(state["learned"])
        if self.network is not None:
            self.network.import_names(state["names"])
            self.network.import_made(state["pseudonyms"])
        self.tokens.merge_mapping(state["map"])

    def set_content(self, stored: str, sha256: str, size: int) -> None:
        """Record the stored content's hash when it was assembled from segments."""
        record = self.builder.member(stored)
        record.sha256, record.size = sha256, size

    def export_learned(self) -> LiteralSet:
        """Every literal learned, for a pool worker to start from (:meth:`start_from`)."""
        return self.literals.snapshot()

    def start_from(self, learned: LiteralSet) -> None:
        """Start a fresh redactor (same configuration) from another's :meth:`export_learned`.

        The snapshot replaces this redactor's set: a redactor built from the same
        configuration learned nothing the coordinator does not hold (the rule file's
        literals are learned by both when they are built).
        """
        self.literals = learned

    def import_learned(self, learned: Iterable[tuple[bytes, str, bytes]]) -> None:
        for value, kind, identity in learned:
            self.literals.learn(value, kind, identity, force=True)
