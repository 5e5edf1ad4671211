"""A structured member too large for the structure walk is never passed off as fully redacted.

Before: above 16 MiB a JSON, YAML or TOML member silently got the line rules alone, in
``bundler redact`` and ``bundler review`` both. A Kubernetes ``Secret``'s ``data`` (which
only the walk recognizes) stayed in clear, the report said nothing, and review called the
member clean (exit 0). Now the report names the member, and review rejects it (exit 2).
"""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from bundler.cli import cli
from bundler.source import MemorySource
from redactors import Policy
from redactors.errors import MemberUnreadable
from redactors.review import review_source
from tests.support.redaction import run

PLANTED = b"Zr8-UltraPrivate-Value-91x"
ENCODED = base64.b64encode(PLANTED)


def listing(config_maps: int) -> bytes:
    """``kubectl get cm,secrets -o json``: ConfigMaps, then one ``Secret`` whose ``data``
    value no line rule can recognize (base64 under an ordinary-looking key)."""
    items: list[dict[str, object]] = [
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": f"cm-{i}", "namespace": "default"},
            "data": {"note": "x" * 200},
        }
        for i in range(config_maps)
    ]
    items.append(
        {
            "apiVersion": "v1",
            "kind": "Secret",
            "metadata": {"name": "db"},
            "type": "Opaque",
            "data": {"conn-extra": ENCODED.decode()},
        }
    )
    return json.dumps({"apiVersion": "v1", "kind": "List", "items": items}, indent=1).encode()


def _cli(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_a_member_over_the_policys_cap_is_named_in_the_report() -> None:
    data = listing(40)
    outputs, redactor, _ = run({"all.json": data}, Policy(structure_max=len(data) - 1))
    assert outputs["all.json"] == data  # the line rules alone: nothing for them here
    (skipped,) = redactor.report().skipped
    assert (skipped.member, skipped.reason, skipped.kept) == ("all.json", "too_large", True)
    assert skipped.detail == (
        f"a JSON document over the {len(data) - 1} bytes the structure walk reads: line rules only"
    )


def test_review_rejects_a_member_over_its_cap_instead_of_calling_it_clean() -> None:
    data = listing(40)
    with pytest.raises(MemberUnreadable, match="review cannot vouch") as raised:
        review_source(MemorySource({"all.json": data}), structure_max=len(data) - 1)
    assert raised.value.member == "all.json"
    assert review_source(MemorySource({"all.json": data}), structure_max=len(data)).findings


def _toml_over_16_mib() -> bytes:
    """A settings file TOML's parser would have to hold whole: 16 MiB is as far as it goes."""
    lines = [b"[limits]\n"] + [
        b'host_%06d = "worker.example.internal"\n' % i for i in range(460_000)
    ]
    data = b"".join(lines)
    assert len(data) > 16 << 20
    return data


def test_redact_then_review_of_a_toml_file_too_large_to_parse(tmp_path: Path) -> None:
    """End to end: redact writes it with the line rules and says so; review rejects it."""
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    (src / "settings.toml").write_bytes(_toml_over_16_mib())
    code, _, err = _cli("redact", str(src), "--out", str(out))
    assert code == 0, err
    assert "1 skipped (line rules only 1; see the report)" in err
    report = json.loads((out / "redaction-report.json").read_text())
    assert [(s["member"], s["reason"], s["kept"]) for s in report["skipped"]] == [
        ("settings.toml", "too_large", True)
    ]
    for target in (out, src):
        code, stdout, err = _cli("review", str(target))
        assert code == 2, (stdout, err)
        assert err.splitlines()[0] == (
            f"bundler: error: {target}: unreadable: rejected: member 'settings.toml': a TOML "
            "document over the 16 MiB the structure walk reads: review cannot vouch that no "
            "value under a secret key is left"
        )
        assert "clean" not in stdout + err
