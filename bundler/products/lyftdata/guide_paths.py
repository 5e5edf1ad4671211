"""Every generic recovery path as a LyftData finding reads it: cited in LyftData's guide.

The generic texts (:mod:`bundler.analyze.recovery`) are product-neutral and cite no
product's document, because Flux findings reach them too and a Flux operator must never be
sent to LyftData's guide. LyftData's facts are its *Worker Recovery and Serviceability*
guide's, so here each generic path cites the guide's section it follows; where the guide
has LyftData's own words (``LYFTDATA_URL``, the Provider Pack, ``lyftdata workers remove``)
the path is LyftData's own text (:mod:`.recovery`).
"""

from __future__ import annotations

from bundler.analyze.recovery import (
    PATHS,
    SERVER_REACHABILITY_CLOSE,
    SERVER_REACHABILITY_SUMMARY,
    SERVER_TLS_COLLECTOR_STEPS,
    SERVER_TLS_SUMMARY,
    reworded,
)
from schemas import Recovery

from .recovery import CONNECTIVITY, GUIDE, RECOVERY_PATHS, RESET_STATE_REPAIR

SECTIONS: dict[str, str] = {
    "connectivity": "Connectivity or TLS",
    "server-tls": "Connectivity or TLS",
    "server-reachability": "The serviceability ladder (Server)",
    "server-health": "the ladder's first rung (server)",
    "heartbeat": "Worker heartbeat",
    "license": "License or runtime authorization",
    "lease": "Connectivity or TLS (reachability, clock synchronization); License or runtime "
    "authorization",
    "registration": "Worker Authentication",
    "placement": "Placement; Upgrade or replace a worker, step 7",
    "deployment": "Deployment; Missing runtime prerequisites",
    "prerequisites": "Missing runtime prerequisites",
    "trust-root": "License or runtime authorization",
    "capacity": "Capacity",
    "outcome": "Outcome; Recovery acceptance",
    "local-state": "Corrupt local state",
    "replace": "Upgrade or replace a worker",
    "remove": "Remove a worker safely",
}
"""Generic path id -> the guide's section it follows. The paths about bundler itself
(``api-access``, ``recollect``, ``reader-limit``) cite bundler and are left as they are."""

REQUIREMENT_REPAIRS: dict[str, str] = {
    "bind": "Bind the required credential to the job.",
    "allow": "Add the worker to the credential's allowed workers.",
    "database": "Update worker database settings or the exact job ACL.",
    "stage": "Stage and deploy the required job.",
    "source": "Repair the source or Provider Pack setup journey.",
}
"""The guide's five repairs in its words, by the generic repair id
(``bundler/analyze/rules/_repairs.py``): each blocker's finding names the one that fits.
The Provider Pack is LyftData's word, so the generic text says "the source's setup"."""

_FIVE = "; ".join(
    text[0].lower() + text[1:].rstrip(".") for text in REQUIREMENT_REPAIRS.values()
).replace("; repair the source", "; or repair the source")

PREREQUISITES = reworded(
    "prerequisites",
    f"{GUIDE}: Missing runtime prerequisites",
    {
        1: f"Repair the blocker it names, with the one repair that fits: {_FIVE}.",
        2: "Rerun readiness after the repair, and read the runtime-requirements report again.",
    },
)
"""The guide's five repairs, one of which fits the named blocker, then its "Rerun
readiness after the repair"."""

SERVER_TLS = Recovery(
    summary=SERVER_TLS_SUMMARY,
    steps=[*SERVER_TLS_COLLECTOR_STEPS, *CONNECTIVITY.steps],
    cautions=list(CONNECTIVITY.cautions),
    reference=f"{GUIDE}: Connectivity or TLS",
)
"""Doctor's machine first (its connection is the one that refused the certificate, or, with
``--insecure``, never checked it), then the guide's six checks from the worker host,
``LYFTDATA_URL`` first. Its caution is the guide's "Use insecure TLS only for bounded
evaluation with a self-signed certificate", the words ``TLS_INSECURE_IN_USE`` needs."""


_FROM_COLLECTOR = "from the machine that ran `bundler doctor`"
SERVER_REACHABILITY = Recovery(
    summary=SERVER_REACHABILITY_SUMMARY,
    steps=[
        "Compare the URL doctor was given (`--server`) with LYFTDATA_URL, the control-plane "
        "URL the workers use: the same server, scheme and port (HTTPS on 3000 by default).",
        f"Confirm DNS: the host in that URL resolves {_FROM_COLLECTOR}.",
        f"Confirm TCP reachability of that host and port {_FROM_COLLECTOR}: a server left on "
        "its default bind address, 127.0.0.1:3000, answers on its own host only.",
        "Confirm certificate trust: that machine trusts the CA that signed the server's "
        "certificate (`--ca-cert FILE`), and the certificate names the host in the URL.",
        f"Confirm proxy behavior {_FROM_COLLECTOR} (`HTTPS_PROXY`, `NO_PROXY` in its "
        "environment) and in front of the server.",
        "On the server host, answer the ladder's first question, \"Is the control plane "
        'reachable and healthy?", with `lyftdata doctor --json`.',
        SERVER_REACHABILITY_CLOSE,
    ],
    cautions=[
        "This is the collecting machine's path to the server, not a worker's: Connectivity or "
        "TLS from each worker host is a separate check, and no worker is judged from a bundle "
        "whose collector reached no server.",
        "Use insecure TLS only for a bounded evaluation with a self-signed certificate, never "
        "as the fix.",
    ],
    reference=f"{GUIDE}: The serviceability ladder (Server: is the control plane reachable "
    "and healthy?); Capture evidence first; Connectivity or TLS (its checks, from the "
    "collecting machine)",
)
"""The server rung's question from the guide, and its connectivity checks (DNS, TCP
reachability, certificate trust, proxy behavior) asked of the machine whose connection
failed; clock synchronization, a worker's lease concern, is left to the worker's path."""


def _cited(path: str, section: str) -> Recovery:
    return PATHS[path].model_copy(deep=True, update={"reference": f"{GUIDE}: {section}"})


def guide_paths() -> dict[str, Recovery]:
    """LyftData's text for every generic path that follows its guide."""
    cited = {path: _cited(path, section) for path, section in SECTIONS.items()}
    return {
        **cited,
        **RECOVERY_PATHS,
        "prerequisites": PREREQUISITES,
        "server-tls": SERVER_TLS,
        "server-reachability": SERVER_REACHABILITY,
        "local-state": RESET_STATE_REPAIR,
    }
