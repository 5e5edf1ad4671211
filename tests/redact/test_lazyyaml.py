"""A large YAML member read a document at a time, a big document item by item, walks as the
documents ``load_documents`` builds whole.

Compared by shape (:func:`tests.redact.test_yamldocs._shape`: types, ``nan``, cycles) once
the lazy sequences are read, on the corners of the direct build, on corners of the lazy
reading (anchors before and inside the items, several sequences, unusual tops), on
generated documents and on the peer suites' YAML; a document ``load_documents`` refuses is
refused alike, and a broken stream gives what the salvage gives.
"""

from __future__ import annotations

from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from redactors import lazyyaml, salvage
from redactors.lazyyaml import LazySequence
from redactors.structure import find_secrets, parse
from redactors.yamldocs import load_documents
from tests.redact.test_yamldocs import CORNERS, _shape
from tests.support.requirements import need
from tests.support.shared import shared_path


def _read(document: Any) -> Any:
    """The document with its lazy sequences (only ever at its top) read."""
    if isinstance(document, LazySequence):
        return list(document)
    if isinstance(document, dict):
        return {
            key: list(value) if isinstance(value, LazySequence) else value
            for key, value in document.items()
        }
    return document


def _outcome(load: Any, data: bytes) -> tuple[str, Any]:
    try:
        return "ok", _shape([_read(document) for document in load(data)])
    except Exception as error:  # the error's type is what is compared
        return "error", type(error).__name__


def assert_same(data: bytes) -> None:
    assert _outcome(lazyyaml.load, data) == _outcome(load_documents, data), data


LAZY_CORNERS = [
    b"items:\n- a: 1\n- b: [2, 3]\nkind: List\n",
    b"- 1\n- [2, {x: y}]\n- z\n",
    b"a: &x [1, 2]\nitems:\n- b: *x\n- &y {c: 3}\n- *y\nmore: [5, 6]\nlast: *x\n",
    b"items:\n- &i {a: 1}\nagain: *i\n",
    b"first: [1, 2]\nsecond:\n- 3\n- 4\nthird: [5]\n",
    b"items: []\nother: {}\n",
    b"items: [1, 2]\nitems: 3\n",
    b"items: 3\nitems: [1, 2]\n",
    b"items: !!seq [1]\nsets: !!set {a, b}\ntagged: !custom [1]\n",
    b"items: &all [1, 2]\ncopy: *all\n",
    b"&root {a: [1, *root]}\n",
    b"<<: {a: [1]}\nb: [2]\n",
    b"? [complex]\n: [1]\n",
    b"!!map {a: [1]}\n",
    b"a: [1]\n...\n---\nb: [2]\n...\n- 3\n",
    b"items:\n- a: 2026-13-45\n",
    b"items:\n- a: *nowhere\n",
    b"items:\n- &d 1\n- &d 2\n",
    b"items:\n- a: [unclosed\n",
    b"plain scalar\n",
    b"items:\n- password: hunter2-Zq8r\n- {name: DB_PASSWORD, value: Pw-91x}\n",
]


@pytest.mark.parametrize("data", CORNERS + LAZY_CORNERS, ids=range(len(CORNERS + LAZY_CORNERS)))
def test_corners_read_as_they_load_whole(data: bytes) -> None:
    assert_same(data)


def test_the_top_level_sequences_are_lazy() -> None:
    (document,) = lazyyaml.load(b"kind: List\nitems:\n- a: 1\n- b: 2\nmore: [3]\nname: x\n")
    assert isinstance(document["items"], LazySequence)
    assert isinstance(document["more"], LazySequence)
    assert len(document["items"]) == 2
    assert list(document["items"]) == [{"a": 1}, {"b": 2}]
    assert list(document["items"]) == [{"a": 1}, {"b": 2}]  # read again from the text


_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.text(max_size=10),
    st.sampled_from(["yes", "~", "0x1f", "2026-12-05", "<<", "-", "hunter2-Zq8r", "Secret"]),
)
_KEYS = st.sampled_from(["items", "kind", "data", "name", "value", "password", "x"])
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_KEYS, inner, max_size=4),
    max_leaves=20,
)
_TOPS = st.dictionaries(_KEYS, _VALUES, max_size=5) | st.lists(_VALUES, max_size=5)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(_TOPS, min_size=1, max_size=3),
    st.booleans(),
    st.sampled_from(
        ["", "base: &a {x: [1]}\nuse: [*a, *a]\n", "- &s s\n- [*s]\n", "m: [{<<: {k: v}}]\n"]
    ),
)
def test_generated_documents_read_as_they_load_whole(
    documents: list[Any], flow: bool, extra: str
) -> None:
    text = yaml.safe_dump_all(documents, default_flow_style=flow, allow_unicode=True)
    assert_same(text.encode("utf-8", "surrogatepass"))
    assert_same((text + "---\n" + extra).encode("utf-8", "surrogatepass"))


def test_the_peer_suites_yaml_reads_the_same() -> None:
    shared = shared_path("peer-suites")
    files = sorted(shared.rglob("*.y*ml")) if shared else []
    need(bool(files), "../shared/peer-suites is not beside the checkout")
    for path in files:
        assert_same(path.read_bytes())


STREAMS = [
    b"a: [1]\n---\nb: [2\n---\nc:\n- password: Pw-3-Zq8r\n",
    b"items:\n- x: 1\n- y: [2\n---\nitems:\n- z: 3\n",
    b"%YAML 1.1\n---\nitems: [1]\n---\n- &a 1\n- *a\n",
    b"---\nkind: Secret\ndata:\n  pw: aHVudGVyMi1acThy\n--- |\n  text\n---\n",
]


@pytest.mark.parametrize("data", STREAMS, ids=range(len(STREAMS)))
def test_a_stream_read_a_piece_at_a_time_gives_what_the_salvage_gives(
    data: bytes, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every piece read lazily (as a large one is), broken ones up to their break."""
    expected = _shape(salvage.yaml_documents(data, load_documents))
    monkeypatch.setattr(lazyyaml, "MIN_BYTES", 0)
    assert _shape([_read(document) for document in lazyyaml.documents(data)]) == expected


def test_a_large_member_is_read_as_the_walk_goes_and_finds_the_same() -> None:
    items = "".join(
        f"- name: w{i:05d}\n  env:\n  - name: API_TOKEN\n    value: tok-{i:05d}-Zq8rT5vW\n"
        for i in range(24_000)
    )
    data = f"kind: List\nitems:\n{items}metadata: {{}}\n".encode()
    assert len(data) >= lazyyaml.MIN_BYTES
    documents = parse(data, "yaml")
    assert documents is not None
    assert not isinstance(documents, list)
    found = find_secrets(documents)
    assert len(found) == 24_000
    assert found == find_secrets(load_documents(data))
