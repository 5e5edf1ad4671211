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
    SERVER_TLS_COLLECTOR_STEPS,
    SERVER_TLS_SUMMARY,
    reworded,
)
from schemas import Recovery

from .recovery import CONNECTIVITY, GUIDE, RECOVERY_PATHS, RESET_STATE_REPAIR

SECTIONS: dict[str, str] = {
    "connectivity": "Connectivity or TLS",
    "server-tls": "Connectivity or TLS",
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

PREREQUISITES = reworded(
    "prerequisites",
    f"{GUIDE}: Missing runtime prerequisites",
    {
        1: "Repair the blocker it names, with the one repair that fits: bind the required "
        "credential to the job; add the worker to the credential's allowed workers; update "
        "the worker's database settings or the job's exact ACL; stage and deploy the "
        "required job; or repair the source or Provider Pack setup journey.",
    },
)
"""The guide's five repairs, one of which fits the named blocker; the Provider Pack is
LyftData's word, so the generic text says "the source's setup" instead."""

SERVER_TLS = Recovery(
    summary=SERVER_TLS_SUMMARY,
    steps=[*SERVER_TLS_COLLECTOR_STEPS, *CONNECTIVITY.steps],
    cautions=list(CONNECTIVITY.cautions),
    reference=f"{GUIDE}: Connectivity or TLS",
)
"""Doctor's machine first (its connection is the one that failed), then the guide's six
checks from the worker host, ``LYFTDATA_URL`` first."""


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
        "local-state": RESET_STATE_REPAIR,
    }
