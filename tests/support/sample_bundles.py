"""Committed sample bundles (``samples/bundles``), read into memory for engine-level tests.

Real evidence collected from a real Flux or the LyftData simulator, so a test
that changes one fact (adds a phantom worker, removes a document) starts from
evidence the project's own fixtures did not hand-make.
"""

from __future__ import annotations

import hashlib
import shutil
from collections.abc import Mapping
from pathlib import Path

from bundler.archive import open_bundle
from bundler.cli.options import OpenSecrets
from bundler.source import MemorySource
from samples import catalog
from schemas import MANIFEST_MEMBER, Manifest


def private_identity(folder: Path) -> Path:
    """The committed sample identity copied into ``folder`` as 0600: a fresh clone checks it
    out 0644, and bundler refuses an identity other users can read, as ssh does."""
    copy = folder / "sample-identity"
    shutil.copyfile(catalog.IDENTITY_PATH, copy)
    copy.chmod(0o600)
    return copy


def load_sample(name: str) -> tuple[MemorySource, Manifest]:
    """Every member of ``samples/bundles/<name>.zip`` and its manifest."""
    path = catalog.BUNDLES_DIR / f"{name}.zip"
    secrets = OpenSecrets(password_env=catalog.PASSWORD_ENV)
    environ = {catalog.PASSWORD_ENV: catalog.SAMPLE_PASSWORD}
    with open_bundle(path, secrets, environ=environ, interactive=False) as reader:
        members = {member: reader.read_bytes(member) for member in reader.names()}
    manifest = Manifest.model_validate_json(members["manifest.json"])
    return MemorySource(members), manifest


def write_sample_dir(
    name: str,
    root: Path,
    changed: Mapping[str, bytes],
    fanned: Mapping[str, tuple[str, bytes]] | None = None,
) -> Path:
    """``samples/bundles/<name>.zip`` extracted under ``root``, with ``changed`` members
    replaced and the manifest's checksums made to match them (a bundle as its collector
    would have written it had the product answered so).

    ``fanned`` adds members: new path -> (the fan-out member it is a second answer of, its
    data), recorded by a collector of its own with the same step and bound values (a list
    naming one item twice makes doctor ask for it twice).
    """
    source, manifest = load_sample(name)
    contents = {member: source.read_bytes(member) for member in source.names()}
    contents.update(changed)
    entries, collectors = [], list(manifest.collectors)
    for entry in manifest.members:
        data = contents.get(entry.path)
        if data is not None and entry.path in changed:
            entry = entry.model_copy(
                update={"sha256": hashlib.sha256(data).hexdigest(), "size": len(data)}
            )
        entries.append(entry)
    for path, (like, data) in (fanned or {}).items():
        model = next(e for e in manifest.members if e.path == like)
        ran = next(c for c in manifest.collectors if c.id == model.collector)
        collector = f"{ran.id}.again"
        collectors.append(ran.model_copy(update={"id": collector, "members": [path]}))
        digest = hashlib.sha256(data).hexdigest()
        entries.append(
            model.model_copy(
                update={"path": path, "sha256": digest, "size": len(data), "collector": collector}
            )
        )
        contents[path] = data
    manifest = manifest.model_copy(update={"members": entries, "collectors": collectors})
    for member, data in contents.items():
        if member == MANIFEST_MEMBER:
            continue
        path = root / member
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    (root / MANIFEST_MEMBER).write_text(manifest.model_dump_json(by_alias=True, indent=2))
    return root
