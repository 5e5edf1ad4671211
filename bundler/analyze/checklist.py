"""A product's recovery acceptance checklist: what a recovered worker must show, in its words.

The evaluation is one (:mod:`.acceptance` reads each check off the ladder the engine
walked, :mod:`bundler.diff.acceptance` adds the "newer than BEFORE" checks); the table
is the product's (``Profile.acceptance_checklist``), because the checks name concepts a
product has or has not. LyftData's *Worker Recovery and Serviceability* guide asks for
runtime authorization of external workers, runtime-requirements blockers, a bounded
canary and an external receipt; Flux has none of those, and a Flux report listing them,
even as "n/a", sent its reader to another product's concepts. So each check says which
fact it proves (:class:`Proof`), and a product lists only the proofs it has, each in its
own terms. :data:`LADDER_CHECKLIST` is the guide's list, the ladder's own: LyftData gives
it, and so does a bundle whose profile this bundler lacks.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum

from schemas import Layer


class Proof(StrEnum):
    """What a check proves; how :mod:`.acceptance` judges it beyond the rungs' statuses."""

    HEARTBEAT = "heartbeat"
    """The worker's heartbeat rung, and system information the worker itself reports."""
    AUTHORIZATION = "authorization"
    PLACEMENT = "placement"
    REQUIREMENTS = "requirements"
    CAPACITY = "capacity"
    CANARY = "canary"
    """A successful run of the job (a canary's outcome, judged by its own codes)."""
    RECEIPT = "receipt"
    """The external receipt a run requires (not applicable where none is required)."""


@dataclass(frozen=True)
class Check:
    """One line of a checklist: the product's words, what it proves, the rungs that prove it."""

    proves: Proof
    text: str
    layers: tuple[Layer, ...]


@dataclass(frozen=True)
class Checklist:
    """A product's checks, and the "newer than BEFORE" lines ``bundler diff`` adds to them."""

    checks: tuple[Check, ...]
    canary_newer: str
    """Diff's check that a successful run is newer than BEFORE (a run older proves no repair)."""
    receipt_newer: str | None = None
    """Diff's check of a receipt newer than BEFORE; None for a product without receipts."""

    def texts(self, proofs: Iterable[Proof]) -> list[str]:
        """The product's words for ``proofs``, in checklist order; a proof it lacks is left out."""
        wanted = set(proofs)
        return [check.text for check in self.checks if check.proves in wanted]

    def for_layer(self, layer: Layer) -> list[str]:
        """The checks a rung proves (a finding's acceptance when its path names none)."""
        return [check.text for check in self.checks if layer in check.layers]

    def for_path(self, path: str) -> list[str]:
        """The checks that prove the recovery path ``path`` worked."""
        return self.texts(PATH_PROOFS.get(path, ()))

    def on_rung(self, cited: list[str], layer: Layer, passed: Iterable[Layer]) -> list[str]:
        """``cited``, the checks a finding on ``layer`` names as proof of its repair, as the
        ladder it failed on reads: without a check whose every rung already ``passed`` (a
        passing check proves nothing about this failure: ``LOCAL_STATE_CORRUPT`` on the
        deployment rung cited "recent heartbeat"), replaced by ``layer``'s own check, which
        passes once the repair worked. In the order given; nothing passed, ``cited`` as is."""
        done = set(passed)
        known = {check.text: check for check in self.checks}
        kept = [t for t in cited if t not in known or not done.issuperset(known[t].layers)]
        if len(kept) == len(cited):
            return cited
        own = [text for text in self.for_layer(layer) if text not in kept]
        return own + kept


_ALL = tuple(Proof)

PATH_PROOFS: dict[str, tuple[Proof, ...]] = {
    "connectivity": (Proof.HEARTBEAT,),
    "server-tls": (Proof.HEARTBEAT,),
    "server-reachability": (Proof.HEARTBEAT,),
    "server-health": (Proof.HEARTBEAT,),
    "api-access": (),
    "heartbeat": (Proof.HEARTBEAT,),
    "license": (Proof.AUTHORIZATION,),
    "lease": (Proof.AUTHORIZATION,),
    "registration": (Proof.HEARTBEAT, Proof.AUTHORIZATION),
    "placement": (Proof.PLACEMENT,),
    "deployment": (Proof.PLACEMENT,),
    "prerequisites": (Proof.REQUIREMENTS,),
    "trust-root": (Proof.AUTHORIZATION, Proof.REQUIREMENTS),
    "capacity": (Proof.CAPACITY,),
    "outcome": (Proof.CANARY, Proof.RECEIPT),
    "local-state": (Proof.HEARTBEAT, Proof.AUTHORIZATION, Proof.CANARY),
    "replace": _ALL,
    "remove": (),
    "recollect": (),
    "reader-limit": (),
}
"""Generic recovery path id -> what proves it worked (each product words the proofs)."""


BOUNDED_CANARY = "successful canary (whether it was bounded is the operator's to confirm)"
"""The guide's "successful bounded canary". The evidence shows whether a canary succeeded,
not whether it was bounded (the scope the operator gave it), so the check says so rather
than reading as though the bound had been verified."""

LADDER_CHECKLIST = Checklist(
    checks=(
        Check(Proof.HEARTBEAT, "recent heartbeat and system information", (Layer.HEARTBEAT,)),
        Check(
            Proof.AUTHORIZATION,
            "valid runtime authorization (external workers)",
            (Layer.AUTHORIZATION,),
        ),
        Check(
            Proof.PLACEMENT,
            "exact intended placement and deployment identity",
            (Layer.PLACEMENT, Layer.DEPLOYMENT),
        ),
        Check(
            Proof.REQUIREMENTS, "no unresolved runtime-requirements blockers", (Layer.REQUIREMENTS,)
        ),
        Check(Proof.CAPACITY, "adequate measured capacity for the target job", (Layer.CAPACITY,)),
        Check(Proof.CANARY, BOUNDED_CANARY, (Layer.OUTCOME,)),
        Check(
            Proof.RECEIPT,
            "external receipt where the job has an external effect",
            (Layer.OUTCOME,),
        ),
    ),
    canary_newer="successful canary newer than BEFORE",
    receipt_newer="external receipt newer than BEFORE (where the job has an external effect)",
)
"""The guide's recovery acceptance list, each check with the rungs that prove it."""


def checklist_of(profile: object | None) -> Checklist:
    """The profile's checklist (optional attribute ``acceptance_checklist``), else the ladder's."""
    own = getattr(profile, "acceptance_checklist", None)
    return own if isinstance(own, Checklist) else LADDER_CHECKLIST
