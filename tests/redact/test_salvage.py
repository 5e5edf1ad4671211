"""Structured members that do not parse whole still give their documents to the walk.

A collector's size cap cuts ``kubectl get secrets -o json`` mid-item; a YAML stream
carries one broken document among good ones; a ``.json`` file holds one value per
line. The line rules alone cannot tell that ``db: aHVudGVy...`` under a ``Secret``'s
``data`` is a secret, so each of these leaked every such value before.
"""

from __future__ import annotations

import base64
import json
from typing import Any

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from redactors import salvage
from redactors.structure import parse
from redactors.yamldocs import load_documents
from tests.support.redaction import run
from tests.support.requirements import need
from tests.support.shared import shared_path


def _secret(index: int) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": f"app-{index}", "namespace": "flux"},
        "type": "Opaque",
        "data": {
            "db": base64.b64encode(f"Pg-Pass-{index}-Zq8rT5vW".encode()).decode(),
            "config": base64.b64encode(f"endpoint=x;secret=Kx{index}w9Lm".encode()).decode(),
        },
    }


SECRETS = [_secret(i) for i in range(6)]
VALUES = [value for item in SECRETS for value in item["data"].values()]


def _cut(text: str, fraction: float) -> bytes:
    return text[: int(len(text) * fraction)].encode()


def _assert_redacted(name: str, data: bytes) -> None:
    outputs, _, _ = run({name: data})
    output = outputs[name]
    whole = [value for value in VALUES if value.encode() in data]
    assert whole, "the cut left no whole value to find"
    assert [value for value in whole if value.encode() in output] == []
    assert output.count(b"\n") == data.count(b"\n")  # no line lost


def test_a_truncated_json_secret_list_is_redacted_up_to_the_cut() -> None:
    listing = {"apiVersion": "v1", "kind": "List", "items": SECRETS}
    for indent in (2, None):
        text = json.dumps(listing, indent=indent)
        for fraction in (0.9, 0.7, 0.45):
            _assert_redacted("secrets.json", _cut(text, fraction))


def test_json_values_one_after_another_are_each_read() -> None:
    lines = "".join(json.dumps(item) + "\n" for item in SECRETS)  # kubectl ... | jq -c
    pretty = "".join(json.dumps(item, indent=2) + "\n" for item in SECRETS)
    for text in (lines, pretty):
        _assert_redacted("secrets.json", text.encode())
        _assert_redacted("secrets.json", _cut(text, 0.6))


def test_a_broken_yaml_document_does_not_hide_the_others() -> None:
    stream = yaml.safe_dump_all(SECRETS[:3]) + "---\nbroken: [unclosed\n---\n"
    stream += yaml.safe_dump_all(SECRETS[3:])
    _assert_redacted("secrets.yaml", stream.encode())


def test_a_yaml_document_broken_midway_gives_what_comes_before() -> None:
    text = yaml.safe_dump({"kind": "List", "items": SECRETS})
    lines = text.splitlines(keepends=True)
    half = len(lines) // 2
    broken = "".join(lines[:half]) + "  \tnot: [yaml\n" + "".join(lines[half:])
    documents = salvage.yaml_documents(broken.encode(), load_documents)
    assert len(documents) == 1
    assert documents[0]["items"] == SECRETS[: len(documents[0]["items"])]
    assert documents[0]["items"]


def test_the_peer_suites_secret_stream_with_a_broken_document_appended() -> None:
    shared = shared_path("peer-suites", "redaction")
    need(shared is not None, "../shared/peer-suites is not beside the checkout")
    assert shared is not None
    data = (shared / "corpus/server/k8s/integration-secrets.yaml").read_bytes()
    values = [
        value.encode()
        for document in yaml.safe_load_all(data)
        for value in (document.get("data") or {}).values()
    ]
    assert len(values) > 30
    for damaged in (data + b"\n---\nfoo: [unclosed\n", data[: len(data) * 2 // 3]):
        outputs, _, _ = run({"secrets.yaml": damaged})
        left = [v for v in values if v in damaged and v in outputs["secrets.yaml"]]
        assert left == []


def test_text_that_is_not_json_at_all_gives_nothing() -> None:
    for text in (b"[2026-12-06 10:00:00] INFO started\n[2026-12-06] x\n", b"{oops", b"", b"  \n"):
        assert parse(text, "json") is None
    assert parse(b"key: [unclosed\n", "yaml") is None


def _is_prefix(recovered: Any, original: Any) -> bool:
    """``recovered`` holds the start of ``original``: whole items, the last one maybe cut."""
    if isinstance(original, dict):
        if not isinstance(recovered, dict):
            return False
        keys = list(recovered)
        if keys != list(original)[: len(keys)]:
            return False
        return all(recovered[k] == original[k] for k in keys[:-1]) and (
            not keys or _is_prefix(recovered[keys[-1]], original[keys[-1]])
        )
    if isinstance(original, list):
        if not isinstance(recovered, list) or len(recovered) > len(original):
            return False
        if not recovered:
            return True
        last = len(recovered) - 1
        return recovered[:last] == original[:last] and _is_prefix(recovered[last], original[last])
    return bool(recovered == original)


_json = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=8)),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=25,
)


@settings(max_examples=300, deadline=None)
@given(
    document=_json.filter(lambda d: isinstance(d, (dict, list))),
    indent=st.sampled_from([None, 2]),
    fraction=st.floats(0.05, 0.99),
)
def test_a_cut_document_is_never_read_as_more_than_it_held(
    document: Any, indent: int | None, fraction: float
) -> None:
    text = json.dumps(document, indent=indent)
    for recovered in salvage.json_documents(_cut(text, fraction)):
        assert _is_prefix(recovered, document)
