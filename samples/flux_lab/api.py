"""The few Flux HTTP calls the lab makes as an *operator* (register, run, look).

These are the state-changing calls bundler itself never makes; they live in
the lab, which plays the operator, never in the profile.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import httpx

WORKFLOWS_FILE = Path(__file__).with_name("lab_workflows.py")
TERMINAL_STATES = frozenset({"COMPLETED", "FAILED", "CANCELLED"})


class FluxApi:
    """A thin httpx wrapper bound to one lab server."""

    def __init__(self, base_url: str, *, timeout_s: float = 30.0) -> None:
        self.base_url = base_url
        self._client = httpx.Client(base_url=base_url, timeout=timeout_s)

    def close(self) -> None:
        self._client.close()

    def healthy(self) -> bool:
        try:
            return self._client.get("/health", timeout=2.0).status_code == 200
        except httpx.HTTPError:
            return False

    def database_up(self) -> bool | None:
        """What ``GET /health`` says of the database (it answers 503 when it is down)."""
        try:
            body = self._client.get("/health", timeout=5.0).json()
        except (httpx.HTTPError, ValueError):
            return None
        return body.get("database") if isinstance(body, dict) else None

    def register_workflows(self, path: Path = WORKFLOWS_FILE) -> list[str]:
        """Upload a workflow file; returns the registered workflow names."""
        with path.open("rb") as handle:
            files = {"file": (path.name, handle, "text/x-python")}
            response = self._client.post("/workflows", files=files)
        response.raise_for_status()
        return [item["name"] for item in response.json()]

    def run(
        self,
        workflow: str,
        value: Any = None,
        *,
        namespace: str = "default",
        mode: str = "async",
        require_worker: str | None = None,
        prefer_worker: str | None = None,
    ) -> dict[str, Any]:
        """Start an execution; ``require_worker`` pins it (``X-Flux-Require-Worker``)."""
        headers = {}
        if require_worker:
            headers["X-Flux-Require-Worker"] = require_worker
        if prefer_worker:
            headers["X-Flux-Preferred-Worker"] = prefer_worker
        response = self._client.post(
            f"/workflows/{namespace}/{workflow}/run/{mode}", json=value, headers=headers
        )
        response.raise_for_status()
        result: dict[str, Any] = response.json()
        return result

    def run_to_end(
        self, workflow: str, value: Any = None, *, timeout_s: float = 120.0, **options: Any
    ) -> dict[str, Any]:
        """Run ``workflow`` and return the execution once it has ended (COMPLETED, ...).

        Flux's sync mode answers when its own wait ends, with the execution still
        RUNNING on a machine busy enough: the execution is then polled, not assumed.
        """
        run = self.run(workflow, value, mode="sync", **options)
        execution_id = str(run["execution_id"])
        deadline = time.monotonic() + timeout_s
        while run.get("state") not in TERMINAL_STATES:
            if time.monotonic() >= deadline:
                raise TimeoutError(f"{workflow} {execution_id} still {run.get('state')}")
            time.sleep(0.2)
            run = self.execution(execution_id)
        return run

    def execution(self, execution_id: str) -> dict[str, Any]:
        response = self._client.get(f"/executions/{execution_id}", params={"detailed": "true"})
        response.raise_for_status()
        result: dict[str, Any] = response.json()
        return result

    def workers(self) -> list[dict[str, Any]]:
        response = self._client.get("/workers")
        response.raise_for_status()
        result: list[dict[str, Any]] = response.json()
        return result

    def worker_statuses(self) -> dict[str, str]:
        """Worker name -> status word ('online', 'offline', 'unhealthy', 'paused')."""
        try:
            return {w["name"]: w["status"] for w in self.workers()}
        except httpx.HTTPError:
            return {}
