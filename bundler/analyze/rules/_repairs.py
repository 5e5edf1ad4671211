"""The one repair that fits each runtime-requirements blocker, in a product's words if it has them.

The facts are those of LyftData's *Worker Recovery and Serviceability* guide ("Repair the
named blocker": five repairs, one per kind of blocker); the texts here are product-neutral,
because Flux's findings reach them too. A product that words a repair its own way (the
guide's "source or Provider Pack setup journey") supplies ``Profile.requirement_repairs``:
repair id (:data:`REPAIR_TEXTS`' keys) -> its sentence, and the rule uses that instead.
"""

from __future__ import annotations

from collections.abc import Mapping

from .. import codes

REPAIR_TEXTS: dict[str, str] = {
    # the guide's five repairs
    "bind": "Bind the required credential to the job.",
    "allow": "Add the worker to the credential's allowed workers.",
    "database": "Update the worker's database settings or the job's exact ACL.",
    "stage": "Stage and deploy the required job.",
    "source": "Repair the source's setup on the worker.",
    # the evidence's own notes, one blocker each
    "database-path": "Check the worker's database settings and its network path to the database.",
    "exec": "Install the binary or script the exec input runs on every worker host.",
    "context": "Define the context key at job, worker or global scope.",
    "os": "Place the job on a worker whose operating system supports the input.",
    "feature": "Enable the feature flag or license the input needs.",
    "egress": "Open the network path from the worker to the destination.",
    "tls-trust": "Install the destination's CA certificate in the worker's trust store.",
    "channel": "Place the channel's producer and consumer on the same worker.",
}
"""Repair id -> the product-neutral sentence."""

BY_CODE: dict[str, str] = {
    "CREDENTIAL_NOT_BOUND": "bind",
    "CREDENTIAL_WORKER_NOT_ALLOWED": "allow",
    "DB_ACL_DENIED": "database",
    "DB_UNREACHABLE": "database-path",
    "NOT_STAGED": "stage",
    "JOB_NOT_STAGED": "stage",
    codes.JOB_NOT_DEPLOYED: "stage",
    "SOURCE_PATH_MISSING": "source",
    "SOURCE_PERMISSION_DENIED": "source",
    "EXEC_BINARY_MISSING": "exec",
    "CONTEXT_KEY_UNRESOLVED": "context",
    "INPUT_OS_UNSUPPORTED": "os",
    "INPUT_FEATURE_GATED": "feature",
    "EGRESS_BLOCKED": "egress",
    "TLS_TRUST_MISSING": "tls-trust",
    "WORKER_CHANNEL_PEER_ABSENT": "channel",
}
"""Blocker code -> the repair the guide (or the evidence note) names for it."""

BY_KIND: dict[str, str] = {
    "credential": "bind",
    "binding": "bind",
    "credential_allowed_workers": "allow",
    "database_acl": "database",
    "source_prerequisite": "source",
    "context": "context",
    "egress": "egress",
}
"""Requirement kind -> its repair, for a blocker whose code names none."""


def repair_for(code: str, kind: str, words: Mapping[str, str]) -> str | None:
    """The repair for a blocker (by its code, else its requirement's kind), in ``words``
    (the product's ``requirement_repairs``) where it words it, else the neutral text."""
    repair = BY_CODE.get(code) or BY_KIND.get(kind)
    if repair is None:
        return None
    return words.get(repair) or REPAIR_TEXTS[repair]
