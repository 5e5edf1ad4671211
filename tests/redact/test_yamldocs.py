"""The direct YAML build gives what ``yaml.load_all`` gives, or PyYAML's own answer.

Compared by ``repr`` (``.nan`` is not equal to itself) and by type, document by
document, on hand-picked corners of YAML and on generated documents.
"""

from __future__ import annotations

import math
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from redactors import yamldocs
from redactors.yamldocs import LOADER, load_documents
from tests.support.requirements import need
from tests.support.shared import shared_path

SHARED = shared_path()


def _reference(data: bytes) -> tuple[str, Any]:
    try:
        return "ok", list(yaml.load_all(data, Loader=LOADER))
    except Exception as error:  # the error's type is what is compared
        return "error", type(error).__name__


def _fast(data: bytes) -> tuple[str, Any]:
    try:
        return "ok", load_documents(data)
    except Exception as error:
        return "error", type(error).__name__


def _shape(value: Any) -> list[tuple[object, ...]]:
    """Equal for equal documents, nan included, strict about types (1 is not True), and
    without recursion: cycles (an alias inside itself) and deep nesting are compared too."""
    out: list[tuple[object, ...]] = []
    stack: list[tuple[Any, tuple[int, ...]]] = [(value, ())]
    while stack:
        item, path = stack.pop()
        if isinstance(item, dict | list):
            if id(item) in path:
                out.append(("cycle", path.index(id(item))))
                continue
            inner = (*path, id(item))
            if isinstance(item, dict):
                out.append(("map", len(item)))
                for key, child in reversed(list(item.items())):
                    stack += [(child, inner), (key, inner)]
            else:
                out.append(("seq", len(item)))
                stack += [(child, inner) for child in reversed(item)]
        elif isinstance(item, float) and math.isnan(item):
            out.append(("nan",))
        else:
            out.append((type(item).__name__, repr(item)))
    return out


def assert_same(data: bytes) -> None:
    expected, got = _reference(data), _fast(data)
    assert expected[0] == got[0], (data, expected, got)
    if expected[0] == "ok":
        assert _shape(expected[1]) == _shape(got[1]), data
    else:
        assert expected[1] == got[1], data


CORNERS = [
    b"",
    b"---\n---\n",
    b"a: 1\nb: 1.5\nc: true\nd: ~\ne: 2026-12-05\nf: 2026-12-05T10:00:00Z\ng: 0x1F\nh: 0o17\n",
    b"i: 1_000\nj: 190:20:30\nk: .inf\nl: -.Inf\nm: .nan\nn: yes\no: 'yes'\np: \"1\"\nq: ''\n",
    b"r: !!binary aGVsbG8=\ns: !!str 12\nt: !!int '7'\nu: !!float 1\n",
    b"base: &b {x: 1, y: 2}\nchild:\n  <<: *b\n  y: 3\n",
    b"list: &l [1, 2]\nagain: *l\nmap: &m {a: b}\nsame: *m\n",
    b"loop: &a [*a]\n",
    b"loop: &a {self: *a}\n",
    b"? [a, b]\n: complex key\n",
    b"? {a: b}\n: mapping key\n",
    b"=: value key\n",
    b"a: =\n",
    b"dup: 1\ndup: 2\nother: 3\n",
    b"set: !!set {a, b}\nomap: !!omap [a: 1, b: 2]\npairs: !!pairs [a: 1]\n",
    b"custom: !Ref thing\n",
    b"local: !!python/object:os.system ls\n",
    b"str-map: !!str {a: 1}\nmap-str: !!map abc\n",
    b"1: int key\n2.5: float key\ntrue: bool key\n~: null key\n2026-01-01: date key\n",
    b"- a\n- - b\n  - c: d\n",
    b"a: [unclosed\n",
    b"a: 1\n---\nb: [\n",
    b"a: 1\n...\n---\nb: 2\n",
    b"text: |\n  line one\n  line two\nfolded: >\n  one\n  two\n",
    b"! plain: ! 12\n",
    b"tab:\t'x'\n",
    "unicode: ключ\nemoji: \U0001f511\n".encode(),
    b"\xff\xfe bad utf-8\n",
    b"%YAML 1.1\n---\na: 1\n",
    b"a: &x 1\nb: *x\nc: *undefined\n",
]


@pytest.mark.parametrize("data", CORNERS, ids=range(len(CORNERS)))
def test_corners_load_as_pyyaml_loads_them(data: bytes) -> None:
    assert_same(data)


def test_deep_nesting_falls_back_to_pyyaml() -> None:
    assert_same(b"[" * 3000 + b"]" * 3000)
    assert_same(b"a:\n" + b"".join(b"  " * i + b"b:\n" for i in range(1, 400)) + b"  " * 400 + b"c")


def test_plain_documents_take_the_direct_build(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fast path is what runs on ordinary documents (not a silent fallback every time)."""

    def refuse(*args: object, **kwargs: object) -> object:
        raise AssertionError("fell back to yaml.load_all")

    monkeypatch.setattr(yamldocs.yaml, "load_all", refuse)
    docs = load_documents(b"kind: Pod\nspec:\n  containers:\n  - name: w\n    ports: [80, 443]\n")
    assert docs == [{"kind": "Pod", "spec": {"containers": [{"name": "w", "ports": [80, 443]}]}}]


def test_yaml_files_of_other_projects_load_the_same() -> None:
    files = sorted(SHARED.glob("peer-suites/**/*.y*ml")) if SHARED else []
    need(bool(files), "../shared/peer-suites is not beside the checkout")
    for path in files:
        assert_same(path.read_bytes())


_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=True),
    st.text(max_size=12),
    st.sampled_from(["yes", "No", "on", "~", "0x1f", "1:30", "2026-12-05", "<<", "=", "-", "!a"]),
)
_DOCUMENTS = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_SCALARS, inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(_DOCUMENTS, min_size=1, max_size=3),
    st.booleans(),
    st.sampled_from(["base: &a {x: 1}\nuse: *a\n", "m: {<<: {k: v}}\n", "", "- &s s\n- *s\n"]),
)
def test_generated_documents_load_the_same(docs: list[Any], flow: bool, extra: str) -> None:
    text = yaml.safe_dump_all(docs, default_flow_style=flow, allow_unicode=True)
    assert_same(text.encode("utf-8", "surrogatepass"))
    assert_same((text + "---\n" + extra).encode("utf-8", "surrogatepass"))


def test_tags_resolve_as_the_loader_resolves_them() -> None:
    """The table-driven ``resolve`` gives the tag ``Resolver.resolve`` gives, for every first
    character the resolvers know and the plain, quoted and empty scalars around them."""
    fast = yamldocs._Loader(b"")
    slow = LOADER(b"")
    try:
        samples = [
            *("", "~", "null", "Null", "NULL", "true", "Yes", "off", "0x1F", "0o17", "1_000"),
            *("190:20:30", ".inf", "-.Inf", ".nan", "1.5", "+1", "2026-12-05", "<<", "="),
            *("2026-12-05T10:00:00Z", "!x", "&a", "*a", "plain", "0", "-", "."),
        ]
        for value in samples:
            for implicit in ((True, False), (False, True), (False, False)):
                node = yaml.nodes.ScalarNode
                assert fast.resolve(node, value, implicit) == slow.resolve(node, value, implicit)
        for kind in (yaml.nodes.SequenceNode, yaml.nodes.MappingNode):
            implicit = (True, False)
            assert fast.resolve(kind, None, implicit) == slow.resolve(kind, None, implicit)
    finally:
        fast.dispose()
        slow.dispose()


@given(st.text(max_size=12))
@settings(max_examples=300, deadline=None)
def test_any_plain_scalar_resolves_as_the_loader_resolves_it(value: str) -> None:
    fast, slow = yamldocs._Loader(b""), LOADER(b"")
    try:
        node = yaml.nodes.ScalarNode
        assert fast.resolve(node, value, (True, False)) == slow.resolve(node, value, (True, False))
    finally:
        fast.dispose()
        slow.dispose()


def test_a_resolver_added_later_is_used(monkeypatch: pytest.MonkeyPatch) -> None:
    """``yaml.add_implicit_resolver`` on the loader class after import still takes effect."""
    import re

    monkeypatch.setattr(LOADER, "yaml_implicit_resolvers", dict(LOADER.yaml_implicit_resolvers))
    yaml.add_implicit_resolver("!version", re.compile(r"^v\d+$"), list("v"), Loader=LOADER)
    assert_same(b"release: v12\nname: vega\n")
