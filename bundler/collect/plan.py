"""A collection plan is data: named, read-only HTTP GETs and host commands/files.

Profiles (``bundler.products.<name>``) declare *what* to collect as a
:class:`Plan`; the engine (``bundler.collect``) decides *how*: concurrency,
timeouts, retries, size caps, redaction and recording outcomes. Because a plan
is data, a test can walk every profile's plan and prove it is read-only.

Templates
---------
``path``, ``argv`` items and ``member`` are ``str.format`` templates.

* HTTP fan-out variables come from :class:`ForEach.bind` (e.g. ``{name}``)
  plus ``{index}`` (0-based position of the item, zero-padded to 3 digits).
* Host steps see the host's variables: ``{alias}``, ``{role}``, ``{worker}``,
  ``{state_dir}``, ``{log_file}`` (for :class:`LogStep`) and every key of the
  inventory's ``vars`` (e.g. ``{db_path}``). A step whose template names a
  variable the host does not have is *skipped* and the reason recorded.

Member names never contain a hostname, a worker name, or any value taken from
the target: hosts appear as their alias (``h01``), fan-out items as their
index. Names are visible without the password (zip metadata is clear text).
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, model_validator

from schemas import InputModel
from schemas.manifest import HostRole

DEFAULT_MAX_BYTES = 16 * 1024 * 1024
"""Default size cap of one HTTP response or command output."""


class ForEach(InputModel):
    """Expand a step once per item of another step's JSON result."""

    step: str = Field(description="Id of the step whose JSON result is iterated.")
    items: str = Field(
        default="",
        description=(
            "JSON pointer to the list to iterate ('' = the document itself, e.g. '/executions')."
        ),
    )
    where: dict[str, list[str]] = Field(
        default_factory=dict,
        description="Keep items whose field (JSON pointer relative to the item) is in the list.",
    )
    bind: dict[str, str] = Field(
        description=(
            "Template variable -> JSON pointer relative to the item, e.g. {'name': '/name'}."
        )
    )
    limit: int = Field(default=100, ge=1, description="At most this many expansions.")


class HttpStep(InputModel):
    """One read-only GET against the control plane."""

    kind: Literal["http"] = "http"
    id: str = Field(pattern=r"^[a-z][a-z0-9_.-]*$")
    path: str = Field(description="Path template, e.g. '/workers/{name}'.")
    params: dict[str, str] = Field(default_factory=dict, description="Query parameters.")
    for_each: ForEach | None = None
    member: str = Field(description="Member name template, e.g. 'raw/http/workers.json'.")
    media_type: Literal["application/json", "text/plain"] = "application/json"
    schema_name: str | None = Field(
        default=None, description="Raw schema (product model) the response is validated against."
    )
    optional: bool = Field(
        default=False,
        description="A 404 means 'feature absent': outcome 'skipped' with `absent_note`.",
    )
    absent_note: str | None = None
    max_bytes: int = DEFAULT_MAX_BYTES
    timeout_s: float | None = None


class HostStep(InputModel):
    """Fields shared by steps that run on hosts (over SSH, or locally with --local)."""

    id: str = Field(pattern=r"^[a-z][a-z0-9_.-]*$")
    roles: list[HostRole] = Field(
        default_factory=lambda: [HostRole.SERVER, HostRole.WORKER, HostRole.OTHER]
    )
    member: str = Field(description="Member name template, e.g. 'hosts/{alias}/flux-status.txt'.")
    media_type: Literal["application/json", "text/plain"] = "text/plain"
    schema_name: str | None = None
    max_bytes: int = DEFAULT_MAX_BYTES
    timeout_s: float | None = None


class CommandStep(HostStep):
    """Run a read-only command; its stdout is the evidence (stderr and exit code recorded)."""

    kind: Literal["command"] = "command"
    argv: list[str] = Field(min_length=1, description="Argument vector (templates allowed).")
    cwd: str | None = Field(
        default=None,
        description=(
            "Working directory template (e.g. '{flux_home}'): some product CLIs find their "
            "state relative to it. The engine changes into it before running argv."
        ),
    )
    missing_ok: bool = Field(
        default=False,
        description=(
            "If the program is not installed, record 'skipped' (e.g. an optional product CLI) "
            "instead of 'failed'."
        ),
    )
    ok_exit_codes: list[int] = Field(default_factory=lambda: [0])


class FileStep(HostStep):
    """Read one file (head and tail kept when it exceeds ``max_bytes``)."""

    kind: Literal["file"] = "file"
    path: str = Field(description="Path template, e.g. '{state_dir}/flux.toml'.")
    missing_ok: bool = True


class LogStep(HostStep):
    """Collect every log the inventory names for the host (files and systemd units).

    Honors ``--since``, ``--log-lines`` and ``--log-bytes``; produces one member
    per log, indexed in ``evidence/logs.json``. ``member`` may use ``{log_index}``.
    """

    kind: Literal["logs"] = "logs"
    member: str = "hosts/{alias}/logs/{log_index}.log"


Step = Annotated[HttpStep | CommandStep | FileStep | LogStep, Field(discriminator="kind")]


class Plan(InputModel):
    """Everything a profile collects."""

    profile: str
    steps: list[Step] = Field(default_factory=list)

    @model_validator(mode="after")
    def _ids_unique_and_fanouts_resolve(self) -> Plan:
        ids = [step.id for step in self.steps]
        duplicates = sorted({i for i in ids if ids.count(i) > 1})
        if duplicates:
            raise ValueError(f"duplicate step ids: {duplicates}")
        for step in self.steps:
            fan_out = step.for_each if isinstance(step, HttpStep) else None
            if fan_out is not None and fan_out.step not in ids:
                raise ValueError(f"step {step.id} fans out over unknown step {fan_out.step}")
        return self

    def http_steps(self) -> list[HttpStep]:
        return [s for s in self.steps if isinstance(s, HttpStep)]

    def host_steps(self) -> list[CommandStep | FileStep | LogStep]:
        return [s for s in self.steps if not isinstance(s, HttpStep)]
