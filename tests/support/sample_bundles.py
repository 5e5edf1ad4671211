"""Committed sample bundles (``samples/bundles``), read into memory for engine-level tests.

Real evidence collected from a real Flux or the LyftData simulator, so a test
that changes one fact (adds a phantom worker, removes a document) starts from
evidence the project's own fixtures did not hand-make.
"""

from __future__ import annotations

from bundler.archive import open_bundle
from bundler.cli.options import OpenSecrets
from bundler.source import MemorySource
from samples import catalog
from schemas import Manifest


def load_sample(name: str) -> tuple[MemorySource, Manifest]:
    """Every member of ``samples/bundles/<name>.zip`` and its manifest."""
    path = catalog.BUNDLES_DIR / f"{name}.zip"
    secrets = OpenSecrets(password_env=catalog.PASSWORD_ENV)
    environ = {catalog.PASSWORD_ENV: catalog.SAMPLE_PASSWORD}
    with open_bundle(path, secrets, environ=environ, interactive=False) as reader:
        members = {member: reader.read_bytes(member) for member in reader.names()}
    manifest = Manifest.model_validate_json(members["manifest.json"])
    return MemorySource(members), manifest
