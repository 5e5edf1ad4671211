"""A large JSON document read with its top-level lists lazy walks as ``json.loads``' tree.

Compared by materializing every lazy list (recursively) and by the secrets the structure
walk finds, on hand-picked corners, generated documents and the peer suites' JSON; and a
document ``json.loads`` refuses is refused as well.
"""

from __future__ import annotations

import json
import tracemalloc
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from redactors import jsonwindow, salvage, shallowjson
from redactors.shallowjson import LazyList
from redactors.structure import find_secrets, parse
from tests.support.requirements import need
from tests.support.shared import shared_path


def _plain(value: Any) -> Any:
    """The lazy lists made real, to compare with ``json.loads``' tree (repr: NaN)."""
    if isinstance(value, LazyList):
        return [_plain(item) for item in value]
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    return value


def _outcome(load: Any, data: bytes) -> tuple[str, Any]:
    try:
        return "ok", repr(_plain(load(data)))
    except (ValueError, RecursionError) as error:
        return "error", type(error).__name__ if not isinstance(error, ValueError) else "ValueError"


def assert_same(data: bytes) -> None:
    assert _outcome(shallowjson.load, data) == _outcome(json.loads, data)
    try:
        reference = json.loads(data)
    except (ValueError, RecursionError):
        return
    assert find_secrets([shallowjson.load(data)]) == find_secrets([reference])


CORNERS = [
    b"[]",
    b" [ ] ",
    b"{}",
    b'{"a": []}',
    b'[{"password": "hunter2-Zq8r"}, {"token": "x"}, 3, "s", null, [1, [2]]]',
    b'{"workers": [{"name": "w1", "key": "AQBxMUxaAAAAABAAm2yC9bjLS8HSdU1DTm9d2g=="}],'
    b' "kind": "Secret", "data": {"pw": "aHVudGVyMg=="}}',
    b'{"data": [1, 2], "stringData": {"pw": "aHVudGVyMg=="}, "kind": "Secret"}',
    b'{"name": "DB_PASSWORD", "value": "hunter2-Zq8r", "items": [{"name": "API_TOKEN",'
    b' "value": "tok-1"}]}',
    b'{"a": 1, "a": [2, {"password": "p-9Zq8"}], "b": {"c": [1]}}',
    b'\xef\xbb\xbf{"bom": [1]}',
    '{"ü": ["\\ud83d\\ude00", "é"]}'.encode("utf-16"),
    b"[NaN, Infinity, -Infinity, 1e400]",
    b"[1, 2,]",
    b"[1 2]",
    b'{"a" 1}',
    b'{"a": 1,}',
    b"{'a': 1}",
    b"[1] [2]",
    b"[1]   \n",
    b'{"a": [1, 2}',
    b"[" * 5000 + b"]" * 5000,
    b'["\xff"]',
    b'["a\x01"]',
    b"",
    b"   ",
]


@pytest.mark.parametrize("data", CORNERS, ids=range(len(CORNERS)))
def test_corners_read_as_json_loads_reads_them(data: bytes) -> None:
    assert_same(data)


_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False),
    st.text(max_size=12),
    st.sampled_from(["hunter2-Zq8rT5", "AQBxMUxaAAAAABAAm2yC9bjLS8HSdU1DTm9d2g==", "Secret"]),
)
_keys = st.sampled_from(
    ["name", "value", "password", "token", "key", "kind", "data", "stringData", "id", "é"]
)
_json = st.recursive(
    _scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_keys, inner, max_size=4),
    max_leaves=30,
)


@settings(max_examples=300, deadline=None)
@given(document=_json, indent=st.sampled_from([None, 0, 2]))
def test_generated_documents_walk_the_same(document: Any, indent: int | None) -> None:
    assert_same(json.dumps(document, indent=indent).encode())


def test_the_peer_suites_json_reads_the_same() -> None:
    shared = shared_path("peer-suites")
    files = sorted(shared.rglob("*.json")) if shared else []
    need(bool(files), "../shared/peer-suites is not beside the checkout")
    for path in files:
        assert_same(path.read_bytes())


def _fleet_listing(workers: int) -> bytes:
    return json.dumps(
        {
            "observed_at": "2026-12-06T00:00:00Z",
            "workers": [
                {
                    "name": f"w{i:04d}",
                    "labels": {"zone": "a", "pool": str(i % 7)},
                    "packages": [{"name": f"p{j}", "version": "1.0"} for j in range(12)],
                    "token": f"tok-{i:04d}-Zq8rT5vW",
                }
                for i in range(workers)
            ],
        }
    ).encode()


def test_large_documents_are_read_lazily_by_parse_and_find_the_same() -> None:
    data = _fleet_listing(2100)
    assert len(data) >= shallowjson.MIN_BYTES
    (document,) = parse(data, "json") or [None]
    assert isinstance(document["workers"], LazyList)
    assert len(document["workers"]) == 2100
    found = find_secrets([document])
    assert len(found) == 2100
    assert found == find_secrets([json.loads(data)])


def test_small_documents_are_parsed_whole() -> None:
    (document,) = parse(b'{"workers": [1, 2]}', "json") or [None]
    assert type(document["workers"]) is list


def test_the_walk_holds_one_item_not_the_whole_tree() -> None:
    data = _fleet_listing(2100)
    tracemalloc.start()
    try:
        json.loads(data)
        whole = tracemalloc.get_traced_memory()[1]
        tracemalloc.reset_peak()
        find_secrets([shallowjson.load(data)])
        lazy = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert lazy < whole / 2


def _salvage_outcome(read: Any, data: bytes) -> tuple[str, Any]:
    try:
        return "ok", repr([_plain(document) for document in read(data)])
    except (ValueError, RecursionError):
        return "error", None


def assert_salvaged_the_same(data: bytes) -> None:
    """What ``salvaged`` reads of a text ``json.loads`` refuses is what the whole-text salvage
    reads, or it refuses (then the whole-text salvage runs: :func:`.structure.parse`)."""
    if _outcome(json.loads, data)[0] == "ok":
        return  # never salvaged
    outcome, documents = _salvage_outcome(shallowjson.salvaged, data)
    if outcome == "ok":
        assert documents == repr(salvage.json_documents(data))


@pytest.mark.parametrize("data", CORNERS, ids=range(len(CORNERS)))
def test_corners_salvage_as_the_whole_text_salvage_does(data: bytes) -> None:
    assert_salvaged_the_same(data)


@settings(max_examples=300, deadline=None)
@given(document=_json, indent=st.sampled_from([None, 0, 2]), fraction=st.floats(0.05, 1.0))
def test_generated_documents_cut_anywhere_salvage_the_same(
    document: Any, indent: int | None, fraction: float
) -> None:
    text = json.dumps(document, indent=indent).encode()
    assert_salvaged_the_same(text[: int(len(text) * fraction)])


def test_a_listing_cut_off_anywhere_near_its_end_salvages_the_same() -> None:
    """A collector's size cap cuts a listing mid-item: read up to the cut, lazily."""
    data = _fleet_listing(2100)
    cuts = [len(data) - back for back in (1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144, 233, 377, 610)]
    for cut in cuts:
        documents = list(shallowjson.salvaged(data[:cut]))
        assert isinstance(documents[0]["workers"], LazyList)
        assert repr([_plain(d) for d in documents]) == repr(salvage.json_documents(data[:cut]))


def test_json_lines_salvage_the_same_a_value_at_a_time() -> None:
    lines = b"\n".join(
        json.dumps({"seq": i, "password": f"pw-{i}-Zq8rT5"}).encode() for i in range(30000)
    )
    assert len(lines) >= shallowjson.MIN_BYTES
    for cut in (len(lines), len(lines) - 7, len(lines) - 30):
        documents = shallowjson.salvaged(lines[:cut])
        assert not isinstance(documents, list)  # not every value held at once
        assert [_plain(d) for d in documents] == salvage.json_documents(lines[:cut])


def _json_lines(count: int) -> list[bytes]:
    return [json.dumps({"seq": i, "password": f"pw-{i}-Zq8rT5"}).encode() for i in range(count)]


def test_json_lines_are_parsed_once_each(monkeypatch: pytest.MonkeyPatch) -> None:
    """A journal export is read a line at a time as the walk asks, not found first and
    parsed again (which was a third of its redaction)."""
    lines = _json_lines(30000)
    parsed = []
    reading = jsonwindow.Window.value_at

    def counted(self: jsonwindow.Window, at: int) -> tuple[Any, int]:
        parsed.append(at)
        return reading(self, at)

    monkeypatch.setattr(jsonwindow.Window, "value_at", counted)
    monkeypatch.setattr(shallowjson, "value_in", lambda data: pytest.fail("parsed again"))
    documents = list(shallowjson.salvaged(b"\n".join(lines)))
    assert len(documents) == len(lines)
    assert len(set(parsed)) == len(parsed)  # no value read twice


@pytest.mark.parametrize(
    "bad",
    [b'{"note": "caf\xe9"}', b'{"n": ' + b"7" * 5000 + b"}"],
    ids=["latin-1 byte", "more digits than int reads"],
)
def test_json_lines_that_cannot_be_read_as_utf8_ints_are_refused_before_the_walk(
    bad: bytes,
) -> None:
    """A line ``json`` cannot read for another reason than a break (a byte that is not UTF-8,
    a number longer than ``int`` takes) is found before the walk starts, as before: the
    whole-text salvage then reads the member (or nothing, when it refuses the number too),
    never half of it walked and the rest dropped."""
    lines = _json_lines(30000)
    data = b"\n".join([*lines[:20000], bad, *lines[20000:]])
    assert len(data) >= shallowjson.MIN_BYTES
    with pytest.raises(ValueError, match=r"utf-8|digits"):
        list(shallowjson.salvaged(data))
    try:
        expected: Any = salvage.json_documents(data)
    except ValueError:
        expected = None
    documents = parse(data, "json")
    assert (None if documents is None else list(documents)) == expected


def test_a_large_value_under_the_top_level_is_not_parsed_again_and_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A HAR's ``log`` object (an object, so read whole) outgrows the first window: it is read
    again once, with the rest of the text, not in windows doubling from a quarter MiB, each
    parsed up to its end before it failed (five parses of a 2.8 MB capture)."""
    entries = [{"request": {"url": f"https://api.example/{i}"}} for i in range(50_000)]
    data = json.dumps({"log": {"version": "1.2", "entries": entries}}).encode()
    assert jsonwindow.WINDOW * 8 < len(data) <= jsonwindow.REST_AT_ONCE
    decoded = []
    decode = jsonwindow.Window._decode

    def counted(self: jsonwindow.Window, at: int, size: int) -> None:
        decoded.append(size)
        decode(self, at, size)

    monkeypatch.setattr(jsonwindow.Window, "_decode", counted)
    assert _plain(shallowjson.load(data)) == json.loads(data)
    assert len(decoded) == 2
