"""The serviceability ladder's vocabulary: layers, statuses and verdicts.

The order of :class:`Layer` is the order of the *Worker Recovery and Serviceability*
guide's ladder: check server, then heartbeat, and so on, and stop at the first failed layer.
"""

from __future__ import annotations

from enum import StrEnum


class Layer(StrEnum):
    """One rung of the serviceability ladder, in the order they are checked."""

    SERVER = "server"
    HEARTBEAT = "heartbeat"
    AUTHORIZATION = "authorization"
    PLACEMENT = "placement"
    DEPLOYMENT = "deployment"
    REQUIREMENTS = "requirements"
    CAPACITY = "capacity"
    OUTCOME = "outcome"

    @classmethod
    def ordered(cls) -> list[Layer]:
        """All layers, lowest first."""
        return list(cls)

    @property
    def index(self) -> int:  # type: ignore[override]  # the rung number shadows str.index
        """The rung's position, 0 for the server: ladders are lists in this order."""
        return list(Layer).index(self)

    @property
    def question(self) -> str:
        """The question this layer answers (the guide's wording)."""
        return LAYER_QUESTIONS[self]


LAYER_QUESTIONS: dict[Layer, str] = {
    Layer.SERVER: "Is the control plane reachable and healthy?",
    Layer.HEARTBEAT: "Is the worker connected and reporting recent status?",
    Layer.AUTHORIZATION: "Can an external worker obtain and refresh a valid auth lease?",
    Layer.PLACEMENT: "Is the exact job intended for this worker or worker group?",
    Layer.DEPLOYMENT: "Did the exact rendered job reach a runnable state?",
    Layer.REQUIREMENTS: (
        "Are credentials, bindings, worker settings, database ACLs, and source "
        "prerequisites satisfied?"
    ),
    Layer.CAPACITY: (
        "Does the worker have the resources and component capabilities required by the job?"
    ),
    Layer.OUTCOME: "Did a canary run and, where required, produce an external receipt?",
}


class LayerStatus(StrEnum):
    """What the analyzer concluded about one layer of one target.

    ``unknown`` means the evidence is missing; it is never counted as a pass.
    ``skipped`` means a lower layer already failed (see ``blocked_by``).
    """

    PASS = "pass"  # noqa: S105 (a status word, not a password)
    WARN = "warn"
    FAIL = "fail"
    UNKNOWN = "unknown"
    SKIPPED = "skipped"
    NOT_APPLICABLE = "not_applicable"


class Verdict(StrEnum):
    """The one-word answer at the top of every report.

    * ``healthy``: every applicable layer passed.
    * ``degraded``: nothing failed, but something warned.
    * ``blocked``: a layer failed; the first failed layer says where to act.
    * ``inconclusive``: nothing failed, but evidence for some layer is missing.
    """

    HEALTHY = "healthy"
    DEGRADED = "degraded"
    BLOCKED = "blocked"
    INCONCLUSIVE = "inconclusive"


class Provenance(StrEnum):
    """Where a fact came from: the product said it, or we derived or inferred it."""

    NATIVE = "native"
    DERIVED = "derived"
    INFERRED = "inferred"
