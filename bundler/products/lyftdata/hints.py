"""How to collect each LyftData evidence member: the exact route, option or inventory entry.

An unknown names what it lacked; these say what would decide it
(``Profile.collection_hints``, read by ``bundler.analyze.deciding``).
"""

from __future__ import annotations

SERVER = "`bundler doctor --profile lyftdata --server URL` with LYFTDATA_API_TOKEN set"
HOST = (
    "give the worker host in the `--inventory` file (role: worker, `worker: <worker-id>`, "
    "`state_dir:` its LYFTDATA_JOBS_DIR, `logs:` its unit or file)"
)

COLLECTION_HINTS: dict[str, str] = {
    "evidence/server.json": f"{SERVER} (GET /api/health, /api/version, /api/license/show)",
    "evidence/workers.json": f"{SERVER} (GET /api/workers and /api/workers/<id>/status)",
    "evidence/authorization.json": f"{SERVER} (GET /api/workers/<id>/auth)",
    "evidence/jobs.json": f"{SERVER} (GET /api/jobs)",
    "evidence/placement.json": f"{SERVER} (GET /api/jobs/<name>/placement)",
    "evidence/deployments.json": f"{SERVER} and a server whose GET /api/deployments answers",
    "evidence/requirements.json": f"{SERVER} (GET /api/jobs/<name>/runtime-requirements)",
    "evidence/capacity.json": f"{SERVER} (GET /api/workers/<id>/capacity; the worker must have "
    "metrics collection enabled)",
    "evidence/outcome.json": f"{SERVER} (GET /api/canaries and their receipts); run a bounded "
    "canary first if none ran",
    "evidence/local_state.json": f"{HOST}, to list and check its SQLite state",
    "evidence/logs.json": f"{HOST}, to collect its log",
    "evidence/hosts.json": f"{HOST}, to read its clock and system facts",
}
