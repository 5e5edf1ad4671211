"""Where the team's shared material is: ``../shared`` beside the checkout, else ``/work/shared``.

Peer suites (other projects' test data) and real Flux captures are read from there,
never copied into the project. A clone made elsewhere (CI's, or one in ``/tmp``) finds
them at ``/work/shared``.
"""

from __future__ import annotations

from pathlib import Path

CHECKOUT = Path(__file__).resolve().parents[2]
CANDIDATES = (CHECKOUT.parent / "shared", Path("/work/shared"))


def shared_path(*parts: str, marker: str | None = None) -> Path | None:
    """The first ``<shared>/<parts...>`` that is a directory (holding ``marker``, if named).

    None when no candidate has it: the caller skips locally, or fails in CI through
    :func:`tests.support.requirements.need`.
    """
    for root in CANDIDATES:
        path = root.joinpath(*parts)
        if path.is_dir() and (marker is None or (path / marker).exists()):
            return path
    return None
