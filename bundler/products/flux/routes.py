"""Flux routes bundler must never call, and the states it asks about.

``MUTATING_ROUTES`` holds the path templates of Flux 0.87 that must never be
requested: the two GETs with side effects (``/workers/{name}/connect`` opens
a worker's SSE session and takes over its dispatch stream;
``.../cancel/{execution_id}`` cancels a run), the admin routes that may
return stored secrets or configs (a bundle must not hold them even redacted),
and every path that has no GET at all (the worker protocol, operator
actions). Paths whose GET is a plain read (``/workflows``, ``/schedules``)
are not listed: the plan only ever issues GETs. A test proves no plan step
matches an entry; another derives the same set from the live
``/openapi.json``, so a Flux release that adds a write route is noticed.
"""

from __future__ import annotations

MUTATING_ROUTES: tuple[str, ...] = (
    # GETs with side effects: they look read-only in the route table but are not.
    "/workers/{name}/connect",
    "/workflows/{namespace}/{workflow_name}/cancel/{execution_id}",
    # Never collected, any method: stored secrets and configuration values.
    "/admin/secrets",
    "/admin/secrets/{name}",
    "/admin/secrets/batch",
    "/admin/configs",
    "/admin/configs/{name}",
    "/admin/configs/batch",
    # Write-only paths (no GET at all): the worker protocol and operator actions.
    "/workers/register",
    "/workers/{name}/pong",
    "/workers/{name}/claim/{execution_id}",
    "/workers/{name}/checkpoint/{execution_id}",
    "/workers/{name}/release/{execution_id}",
    "/workers/{name}/progress/{execution_id}",
    "/workers/{name}/approvals/{execution_id}",
    "/workers/{name}/secrets/batch",
    "/workflows/dynamic",
    "/workflows/{namespace}/{workflow_name}/run/{mode}",
    "/workflows/{namespace}/{workflow_name}/resume/{execution_id}/{mode}",
    "/executions/{exec_id}/authorize/{task_name}",
    "/executions/{execution_id}/approvals/{task_call_id}/approve",
    "/executions/{execution_id}/approvals/{task_call_id}/reject",
    "/executions/{execution_id}/name",
    "/schedules/{schedule_id}/pause",
    "/schedules/{schedule_id}/resume",
    "/hooks/{name}/test",
    "/hooks/{name}/deliveries/{delivery_id}/retry",
    "/services/{service_name}/{workflow_name}",
    "/services/{service_name}/{workflow_name}/{mode}",
    "/services/{service_name}/{workflow_name}/resume/{execution_id}",
    "/services/{service_name}/{workflow_name}/resume/{execution_id}/{mode}",
    "/auth/test-token",
    "/admin/principals/{subject}/ban",
    "/admin/principals/{subject}/unban",
    "/admin/principals/{subject}/disable",
    "/admin/principals/{subject}/enable",
    "/admin/principals/{subject}/keys/{key_name}",
    "/admin/principals/{subject}/roles",
    "/admin/principals/{subject}/roles/{role_name}",
    "/admin/roles/{name}/clone",
    "/admin/workers/join-tokens/{token_id}",
    "/admin/workers/{name}/metadata/{key}",
)

MUTATING_GETS: frozenset[str] = frozenset(
    {
        "/workers/{name}/connect",
        "/workflows/{namespace}/{workflow_name}/cancel/{execution_id}",
    }
)
"""GET routes with side effects: they look read-only in the route table but are not."""

NEVER_COLLECT_PREFIXES: tuple[str, ...] = ("/admin/secrets", "/admin/configs")
"""Read routes whose bodies may hold stored secrets or configs: never asked."""

ACTIVE_STATES: tuple[str, ...] = (
    "CREATED",
    "SCHEDULED",
    "CLAIMED",
    "RUNNING",
    "PAUSED",
    "RESUMING",
    "RESUME_SCHEDULED",
    "RESUME_CLAIMED",
    "CANCELLING",
)
"""Non-terminal execution states (``flux.domain.events.ExecutionState``)."""
