"""Recovery texts: every referenced code resolves, and the guide's cautions are kept."""

from __future__ import annotations

import ast
from pathlib import Path

from bundler.analyze import recovery
from bundler.analyze.checklist import LADDER_CHECKLIST
from bundler.products.flux import PROFILE as FLUX
from bundler.products.lyftdata import PROFILE as LYFTDATA

RULES_DIR = Path(__file__).resolve().parents[2] / "bundler" / "analyze" / "rules"


def _codes_raised_by_rules() -> set[str]:
    """Catalog constants (``codes.X``) passed as the first argument of .fail/.warn in rules."""
    found: set[str] = set()
    for path in RULES_DIR.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.Call) or not node.args:
                continue
            name = getattr(node.func, "attr", getattr(node.func, "id", ""))
            first = node.args[0]
            if name in ("fail", "warn") and isinstance(first, ast.Attribute):
                found.add(first.attr)
    return found


def test_every_failing_or_warning_code_of_the_generic_rules_has_advice() -> None:
    codes = _codes_raised_by_rules()
    assert len(codes) > 30
    missing = {c for c in codes if recovery.recovery_for(c) is None}
    assert missing == set()


def test_every_path_is_complete_and_acceptance_checks_exist() -> None:
    for name, path in recovery.PATHS.items():
        assert path.summary, name
        assert path.reference, name
    for checklist in (LADDER_CHECKLIST, FLUX.acceptance_checklist):
        texts = [check.text for check in checklist.checks]
        for code in recovery.CODE_PATHS:
            for check in recovery.acceptance_for(code, checklist):
                assert check in texts


def test_license_recovery_says_no_worker_restart() -> None:
    rec = recovery.recovery_for("LICENSE_EXPIRED_OR_INVALID")
    assert rec is not None
    assert any("does not need a worker restart" in c for c in rec.cautions)
    assert any("lease-refresh" in s for s in rec.steps)


def test_local_state_recovery_keeps_the_guides_cautions_in_lyftdatas_commands() -> None:
    rec = recovery.recovery_for("LOCAL_STATE_CORRUPT", LYFTDATA.recovery_paths)
    assert rec is not None
    text = " ".join(rec.steps + rec.cautions)
    for needle in (
        "Stop the worker service",
        "lyftdata-worker --reset-state repair",
        "--reset-state auth",
        "--yes",
        "last resort",
        "auth-cache or settings databases",
        "without --reset-state",
    ):
        assert needle in text


def test_generic_local_state_recovery_names_no_products_commands() -> None:
    """Flux has no text of its own for the path: a Flux finding gets the generic one."""
    for paths in (None, FLUX.recovery_paths):
        rec = recovery.recovery_for("LOCAL_STATE_CORRUPT", paths)
        assert rec is not None
        assert rec.steps[0] == "Stop the worker service."
        text = " ".join([rec.summary, *rec.steps, *rec.cautions])
        assert "lyftdata" not in text.lower()
        assert "--reset-state" not in text
        for needle in ("one-time", "cached authorization", "last resort", "auth-cache"):
            assert needle in text


def test_recovery_objects_are_copies() -> None:
    first = recovery.recovery_for("WORKER_OFFLINE")
    assert first is not None
    first.steps.append("mutated")
    second = recovery.recovery_for("WORKER_OFFLINE")
    assert second is not None
    assert "mutated" not in second.steps


def test_no_recovery_text_points_at_a_path_by_its_internal_name() -> None:
    """The lease path said "(see connectivity)": a path id the reader never sees, in a report
    that shows one finding's path at a time. Each text says what to check itself."""
    ids = set(recovery.PATHS)
    texts = [recovery.PATHS, FLUX.recovery_paths, LYFTDATA.recovery_paths]
    for paths in texts:
        for path, text in paths.items():
            for line in (text.summary, *text.steps, *text.cautions):
                for other in ids:
                    assert f"see {other})" not in line, (path, line)
                    assert f"see {other}." not in line, (path, line)
