"""Where doctor's evidence goes: a bundle (``--bundle``) or a throw-away spool (live check).

Both go through the bundle builder (:mod:`bundler.archive`) with the
redaction engine (:mod:`redactors`) as its member transform: every member is
redacted, then stored encrypted, in a live check too. This module is the one
place that binds doctor to the redaction engine.
"""

from __future__ import annotations

import secrets
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

from redactors.bundle import BundleRedactor
from redactors.custom import CustomRules
from redactors.policy import Policy
from schemas import EVIDENCE_KINDS

from ..archive import BundleBuilder, Sealing, resolve_seal
from ..archive.contracts import BundleSink, MemberTransform
from ..archive.limits import ReaderLimits
from ..archive.room import BundleRoom
from ..archive.stored import StoredMember
from ..secret_options import SealOptions


class RecordingSink(BundleSink, Protocol):
    """A sink that also says what it recorded of each member so far, and takes doctor's own
    documents without making their pseudonyms twice.

    The normalizer reads ``entries``: whether a raw member validated against its model
    when collected is recorded once, by the collector, and believed afterwards.
    """

    @property
    def entries(self) -> list[StoredMember]: ...

    def add_derived(
        self,
        name: str,
        content: bytes,
        *,
        media_type: str = "application/octet-stream",
        schema_name: str | None = None,
    ) -> StoredMember | None:
        """Store a document made only of what this sink holds redacted (its members read
        back, texts passed through ``redact_text``): the evidence documents and the live
        verdict. Their pseudonyms were made where their text entered, once; making them
        again is not idempotent (an address pseudonym is an address). The secret rules
        run over them again, which changes only what the document's own structure
        exposes (a value under a secret key): redacted text is their fixed point.
        """
        ...


def redaction_transform(
    known_secrets: Sequence[str] = (),
    *,
    keywords: Sequence[str] = (),
    custom: CustomRules | None = None,
    obfuscate_network: bool = False,
    known_hosts: Sequence[str] = (),
) -> MemberTransform:
    """The redaction engine for one bundle, told the secrets doctor itself holds (the token).

    ``keywords``, ``custom`` and ``obfuscate_network`` are ``--keyword``,
    ``--rules`` and ``--obfuscate network``; ``known_hosts`` are the addresses
    doctor was given, pseudonymized everywhere when the network is obfuscated.
    """
    policy = Policy(
        keywords=tuple(s for s in (*known_secrets, *keywords) if s),
        custom=custom,
        obfuscate_network=obfuscate_network,
        known_hosts=tuple(known_hosts),
    )
    return BundleRedactor(policy)


AFTER_COLLECTION = len(EVIDENCE_KINDS) + 1
"""Members doctor writes after collection: an evidence document of each kind at most,
and the live verdict (``analysis.json``). The bundle's room keeps their places."""


def create_bundle(
    path: Path, seal: SealOptions, transform: MemberTransform, limits: ReaderLimits
) -> BundleBuilder:
    """A ``BundleBuilder`` for ``path``, every member passing through ``transform``, that
    holds what its readers open under ``limits`` (it leaves out what would not fit).

    The password (or recipients) is settled here, before any collection: a
    prompt never interrupts a running collection, and a bad option costs nothing.
    """
    room = BundleRoom(limits, after_collection=AFTER_COLLECTION)
    return BundleBuilder(path, sealing=resolve_seal(seal), transform=transform, room=room)


def open_live(transform: MemberTransform) -> LiveSpool:
    """The sink of a run without ``--bundle``: the builder's encrypted spool, thrown away after.

    Members go to a private temporary directory, encrypted with an ephemeral
    key (nothing readable on disk), so memory stays flat however many hosts.
    """
    return LiveSpool(transform)


class LiveSpool:
    """A bundle builder that is never finalized: its spool lives in a temporary directory."""

    def __init__(self, transform: MemberTransform) -> None:
        self._directory = Path(tempfile.mkdtemp(prefix="bundler-live-"))
        sealing = Sealing.with_password(secrets.token_urlsafe(32))
        self._builder = BundleBuilder(
            self._directory / "live.zip", sealing=sealing, transform=transform
        )
        self.add = self._builder.add
        self.add_derived = self._builder.add_derived
        self.source = self._builder.source
        self.redact_text = self._builder.redact_text

    @property
    def entries(self) -> list[StoredMember]:
        return self._builder.entries

    def abort(self) -> None:
        self._builder.abort()
        shutil.rmtree(self._directory, ignore_errors=True)
