"""Precision on real text: the Flux captures in shared/reference hold logs, API responses,
metrics and SQL, and no live secret (the session tokens there are already masked)."""

from __future__ import annotations

from tests.support.redaction import run
from tests.support.requirements import need
from tests.support.shared import shared_path


def test_real_flux_captures_are_left_byte_for_byte() -> None:
    captures = shared_path("reference", "flux-captures")
    need(captures is not None, "shared/reference/flux-captures is not beside the checkout")
    assert captures is not None
    files = {
        p.relative_to(captures).as_posix(): p.read_bytes()
        for p in captures.rglob("*")
        if p.is_file()
    }
    assert len(files) > 100
    outputs, redactor, refused = run(files)
    assert refused == {}
    changed = sorted(name for name, data in files.items() if outputs[name] != data)
    assert changed == []
    assert redactor.report().total == 0
