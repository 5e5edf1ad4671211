"""Where doctor's evidence goes: a bundle (``--bundle``) or a throw-away spool (live check).

Both go through the bundle builder (:mod:`bundler.archive`): every member is
redacted, then stored encrypted. The redaction engine (:mod:`redactors`) is a
separate package; this module is the one place that binds doctor to it.

INTEGRATION POINT: ``redactors`` is built in parallel (branch ``redact``).
Until it is on main, ``--bundle`` stops with a one-line error instead of
writing anything unredacted, and a live check runs with the identity
transform (its spool is encrypted and deleted; the verdict printed is the
user's own data).
"""

from __future__ import annotations

import importlib
import secrets
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..archive import BundleBuilder, Sealing, resolve_seal
from ..archive.contracts import MemberTransform
from ..cli.options import SealOptions
from ..errors import UsageError


def _optional(module: str) -> Any | None:
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError:
        return None


def redaction_transform(known_secrets: Sequence[str] = ()) -> MemberTransform | None:
    """The redaction engine for one bundle, told the secrets doctor itself holds (the token)."""
    bundle = _optional("redactors.bundle")
    policy = _optional("redactors.policy")
    if bundle is None or policy is None:
        return None
    transform: MemberTransform = bundle.BundleRedactor(
        policy.Policy(keywords=tuple(s for s in known_secrets if s))
    )
    return transform


def open_bundle(path: Path, seal: SealOptions, transform: MemberTransform | None) -> Any:
    """A ``BundleBuilder`` for ``path``; refuses to write anything it could not redact.

    The password (or recipients) is settled here, before any collection: a
    prompt never interrupts a running collection, and a bad option costs nothing.
    """
    if transform is None:
        raise UsageError(
            "this build cannot redact bundles yet (the redactors package is missing); "
            "refusing to write evidence unredacted",
            hint="run `bundler doctor --json` for a live check without a bundle",
        )
    return BundleBuilder(path, sealing=resolve_seal(seal), transform=transform)


def open_live(transform: MemberTransform | None) -> LiveSpool:
    """The sink of a run without ``--bundle``: the builder's encrypted spool, thrown away after.

    Members go to a private temporary directory, encrypted with an ephemeral
    key (nothing readable on disk), so memory stays flat however many hosts.
    """
    return LiveSpool(transform)


class LiveSpool:
    """A bundle builder that is never finalized: its spool lives in a temporary directory."""

    def __init__(self, transform: MemberTransform | None) -> None:
        self._directory = Path(tempfile.mkdtemp(prefix="bundler-live-"))
        sealing = Sealing.with_password(secrets.token_urlsafe(32))
        self._builder = BundleBuilder(
            self._directory / "live.zip", sealing=sealing, transform=transform
        )
        self.add = self._builder.add
        self.source = self._builder.source
        self.redact_text = self._builder.redact_text

    def abort(self) -> None:
        self._builder.abort()
        shutil.rmtree(self._directory, ignore_errors=True)
