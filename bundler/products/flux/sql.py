"""Read-only SQL the plan runs with ``sqlite3 -readonly`` against Flux's database.

Each query returns one JSON array (``json_group_array``), so an empty table
is ``[]`` rather than no output, and names its columns one by one: the
credential columns (``workers.session_token``, ``executions.exec_token``) and
the base64-pickled ones (``labels``, ``runners``, ``metrics``, ``input``) are
never selected, so they never leave the host. Nothing is ever unpickled.

Times in Flux's SQLite are naive UTC (``2026-11-29 17:23:02.232678``).
"""

from __future__ import annotations

WORKERS = (
    "SELECT json_group_array(json_object("
    "'name', name, 'last_seen_at', last_seen_at, "
    "'max_concurrent_executions', max_concurrent_executions, "
    "'read_at', strftime('%Y-%m-%d %H:%M:%f', 'now'))) "
    "FROM (SELECT name, last_seen_at, max_concurrent_executions FROM workers ORDER BY name)"
)
"""Persisted heartbeat (flush time of the reaper tick) and slot limit per worker, with the
database's own clock at read time (``read_at``), so the heartbeat's age does not depend on
how long the rest of the collection took."""

ACTIVE_EXECUTIONS = (
    "SELECT json_group_array(json_object("
    "'execution_id', execution_id, 'workflow_namespace', workflow_namespace, "
    "'workflow_name', workflow_name, 'state', state, 'worker_name', worker_name, "
    "'claim_generation', claim_generation, 'park_deadline', park_deadline, "
    "'required_worker', required_worker, 'preferred_worker', preferred_worker, "
    "'first_event_at', first_event_at, 'last_event_at', last_event_at, "
    "'scheduled_count', scheduled_count)) FROM ("
    "SELECT e.execution_id, e.workflow_namespace, e.workflow_name, e.state, e.worker_name, "
    "e.claim_generation, e.park_deadline, e.required_worker, e.preferred_worker, "
    "(SELECT min(time) FROM execution_events v WHERE v.execution_id = e.execution_id) "
    "AS first_event_at, "
    "(SELECT max(time) FROM execution_events v WHERE v.execution_id = e.execution_id) "
    "AS last_event_at, "
    "(SELECT count(*) FROM execution_events v WHERE v.execution_id = e.execution_id "
    "AND v.type = 'WORKFLOW_SCHEDULED') AS scheduled_count "
    "FROM executions e WHERE e.state NOT IN ('COMPLETED', 'FAILED', 'CANCELLED') "
    "ORDER BY e.execution_id LIMIT 500)"
)
"""Non-terminal executions with claim generation, pins and park deadline (DB only)."""

LAST_RUNS = (
    "SELECT json_group_array(json_object("
    "'workflow_namespace', workflow_namespace, 'workflow_name', workflow_name, "
    "'execution_id', execution_id, 'state', state, 'worker_name', worker_name, "
    "'started_at', first_event_at, 'finished_at', last_event_at)) FROM ("
    "SELECT workflow_namespace, workflow_name, execution_id, state, worker_name, "
    "first_event_at, max(last_event_at) AS last_event_at FROM ("
    "SELECT e.workflow_namespace, e.workflow_name, e.execution_id, e.state, e.worker_name, "
    "(SELECT min(time) FROM execution_events v WHERE v.execution_id = e.execution_id) "
    "AS first_event_at, "
    "(SELECT max(time) FROM execution_events v WHERE v.execution_id = e.execution_id) "
    "AS last_event_at "
    "FROM executions e WHERE e.state IN ('COMPLETED', 'FAILED', 'CANCELLED')) "
    "GROUP BY workflow_namespace, workflow_name ORDER BY workflow_namespace, workflow_name)"
)
"""The latest finished run of every workflow (SQLite takes the bare columns from the
row holding ``max()``): the outcome layer's ``last_run`` canary."""
