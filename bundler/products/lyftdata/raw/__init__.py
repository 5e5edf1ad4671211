"""Pydantic models of LyftData's raw API responses, keyed by raw schema name.

The keys are the ``schema_name`` of the plan's steps; a name ending in ``[]``
is a JSON list of the model. ``tests/lyftdata/test_contract.py`` proves these
models and ``openapi.yaml`` agree field for field.
"""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import BaseModel

from .delivery import (
    CanaryRaw,
    CanaryReceipts,
    DeploymentRaw,
    DoctorReport,
    JobDeploymentRaw,
    ReceiptRaw,
)
from .jobs import JobRequirementsReport, JobSummary, PlacementReport, WorkerRequirementsReport
from .server import EffectiveSettings, Health, License, Version
from .workers import (
    WorkerAuth,
    WorkerCapacityRaw,
    WorkerLogs,
    WorkerStatusRaw,
    WorkerSummary,
    WorkerSysinfo,
)

RAW_MODELS: Mapping[str, type[BaseModel]] = {
    "lyftdata.health": Health,
    "lyftdata.version": Version,
    "lyftdata.license": License,
    "lyftdata.settings": EffectiveSettings,
    "lyftdata.worker[]": WorkerSummary,
    "lyftdata.worker_status": WorkerStatusRaw,
    "lyftdata.worker_sysinfo": WorkerSysinfo,
    "lyftdata.worker_logs": WorkerLogs,
    "lyftdata.worker_auth": WorkerAuth,
    "lyftdata.worker_capacity": WorkerCapacityRaw,
    "lyftdata.job[]": JobSummary,
    "lyftdata.job_placement": PlacementReport,
    "lyftdata.job_requirements": JobRequirementsReport,
    "lyftdata.deployment[]": DeploymentRaw,
    "lyftdata.canary[]": CanaryRaw,
    "lyftdata.canary_receipts": CanaryReceipts,
    "lyftdata.doctor": DoctorReport,
}

__all__ = [
    "RAW_MODELS",
    "CanaryRaw",
    "CanaryReceipts",
    "DeploymentRaw",
    "DoctorReport",
    "EffectiveSettings",
    "Health",
    "JobDeploymentRaw",
    "JobRequirementsReport",
    "JobSummary",
    "License",
    "PlacementReport",
    "ReceiptRaw",
    "Version",
    "WorkerAuth",
    "WorkerCapacityRaw",
    "WorkerLogs",
    "WorkerRequirementsReport",
    "WorkerStatusRaw",
    "WorkerSummary",
    "WorkerSysinfo",
]
