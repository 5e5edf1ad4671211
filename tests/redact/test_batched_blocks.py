"""Proving a view's cursors together decides exactly as asking about them one by one.

``decode_blocks`` must return what ``_decode_block`` returns for each text,
``may_hit_many`` what ``may_hit`` says for each, ``runs_decode_many`` what
``runs_decode`` says; and a cursor the engine skips as proven must be one
whose rescan finds nothing. The texts mix what support bundles hold (cursors,
ids, digests, base64 payloads) with what breaks batching (padding, both
base64 alphabets, 4n+1 lengths, hex that stops being hex, gzip, non-ASCII,
escapes, secrets inside, zlib and text that only starts like it).
"""

from __future__ import annotations

import base64
import gzip
import json
import threading
import zlib

from hypothesis import given, settings
from hypothesis import strategies as st

from redactors import BundleRedactor
from redactors.decode import PROVE_MIN, _decode_block, decode_blocks
from redactors.policy import Policy
from redactors.rules import View

_ENGINE = BundleRedactor(key=b"k" * 32).engine
_SECRETS = [
    "password=hunter2hunter2",
    "ghp_" + "a1B2" * 9,
    "AKIAQWERTYUIOPASDF23",
    "Authorization: Bearer abcdef0123456789abcdef",
    "-----BEGIN RSA PRIVATE KEY-----",
    "postgres://flux:s3cretpass@db:5432/flux",
]
_WORDS = st.sampled_from(["offset", "id", "trace", "sort", "created_at", "n", "ts", "span"])
_SCALARS = st.one_of(
    st.integers(min_value=0, max_value=10**9),
    st.binary(min_size=8, max_size=24).map(lambda b: b.hex()),
    st.binary(min_size=6, max_size=30).map(lambda b: base64.b64encode(b).decode()),
    st.text(alphabet="abcdefghij klmnop", min_size=4, max_size=40).map(
        lambda t: base64.b64encode(t.encode()).decode()
    ),  # base64 of text: a run that decodes
    st.sampled_from(_SECRETS),
    st.sampled_from(["caf\u00e9", "a\\u0041b", "x&amp;y", "100%40", "\x1b[0m"]),
)
_JSON = st.dictionaries(_WORDS, _SCALARS, min_size=1, max_size=4).map(
    lambda d: json.dumps(d).encode()
)


def _encodings(raw: bytes) -> st.SearchStrategy[bytes]:
    return st.sampled_from(
        [
            base64.b64encode(raw),
            base64.b64encode(raw).rstrip(b"="),
            base64.urlsafe_b64encode(raw).rstrip(b"="),
            raw.hex().encode(),
            raw.hex().upper().encode(),
            base64.b64encode(gzip.compress(raw, mtime=0)).rstrip(b"="),
            base64.urlsafe_b64encode(zlib.compress(raw)).rstrip(b"="),
            base64.b64encode(zlib.compress(raw, 9)),
            base64.b64encode(zlib.compress(raw, 1)),
            base64.b64encode(b"x^" + raw),  # starts like a zlib stream, is not one
        ]
    )


_BLOCKS = st.one_of(
    _JSON.flatmap(_encodings),
    st.binary(min_size=6, max_size=60).flatmap(_encodings),
    st.text(
        alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/-_",
        min_size=12,
        max_size=70,
    ).map(str.encode),
    st.binary(min_size=40, max_size=60).map(lambda b: b.hex().encode() + b"zz"),
    st.binary(min_size=3000, max_size=3400).map(lambda b: base64.b64encode(b * 2)),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_BLOCKS, min_size=1, max_size=12))
def test_decode_blocks_gives_what_each_block_gives_alone(texts: list[bytes]) -> None:
    texts = [t for t in (t.rstrip(b"=").strip(b"-_") for t in texts) if len(t) >= 12]
    assert decode_blocks(texts) == [_decode_block(t)[1] for t in texts]


def test_decode_blocks_decodes_what_it_should() -> None:
    """Not vacuous: text comes back, binary does not, in both alphabets and from hex."""
    text = b'{"offset": 100, "sort": "created_at"}'
    blocks = [
        base64.urlsafe_b64encode(text).rstrip(b"="),
        base64.b64encode(b"\xff\xfe" * 10).rstrip(b"="),
        text.hex().encode(),
        b"abcde",  # 4n+1 characters: not base64
        base64.b64encode(b"abcd\x01efghi").rstrip(b"="),  # 9 of 10 printable, the longest stretch 5
        base64.urlsafe_b64encode(zlib.compress(text)).rstrip(b"="),  # a Flask session cookie
        base64.b64encode(b"x^2 + y^2 = z^2"),  # a zlib header that is text
        base64.b64encode(zlib.compress(b"\xff\xfe" * 10, 9)),  # zlib of binary
    ]
    assert decode_blocks(blocks) == [
        text,
        None,
        text,
        None,
        b"abcd\x01efghi",
        text,
        b"x^2 + y^2 = z^2",
        None,
    ]


@settings(max_examples=300, deadline=None)
@given(st.lists(_JSON, min_size=1, max_size=10), st.integers(min_value=0, max_value=3))
def test_may_hit_many_says_what_may_hit_says(datas: list[bytes], depth: int) -> None:
    probe = _ENGINE.probe
    assert probe is not None
    assert probe.batched
    assert probe.may_hit_many(datas, depth) == [probe.may_hit(d, depth) for d in datas]


@settings(max_examples=200, deadline=None)
@given(st.lists(_JSON, min_size=1, max_size=10))
def test_runs_decode_many_says_what_runs_decode_says(datas: list[bytes]) -> None:
    decoders = _ENGINE.decoders
    assert decoders.runs_decode_many(datas) == [decoders.runs_decode(d) for d in datas]


@settings(max_examples=150, deadline=None)
@given(st.lists(_JSON, min_size=PROVE_MIN, max_size=24))
def test_a_proven_cursor_is_one_whose_rescan_finds_nothing(objects: list[bytes]) -> None:
    cursors = [base64.urlsafe_b64encode(o).rstrip(b"=") for o in objects]
    view = View(b"\n".join(b"GET /executions?cursor=" + c + b" 200" for c in cursors))
    decoders = _ENGINE.decoders
    decoders._proof = None
    proven = decoders._proven_in(view)
    for cursor in cursors:
        if cursor in proven:
            assert decoders._found_in_block(cursor, 0) is None


def test_proving_keeps_a_cursor_with_a_secret_and_proves_the_rest() -> None:
    harmless = [json.dumps({"offset": n * 50, "id": f"{n:032x}"}).encode() for n in range(12)]
    secret = json.dumps({"offset": 0, "auth": "password=hunter2hunter2"}).encode()
    cursors = [base64.urlsafe_b64encode(o).rstrip(b"=") for o in [*harmless, secret]]
    view = View(b" ".join(cursors))
    decoders = _ENGINE.decoders
    decoders._proof = None
    proven = decoders._proven_in(view)
    assert set(cursors[:-1]) <= proven
    assert cursors[-1] not in proven


@settings(max_examples=60, deadline=None)
@given(
    st.lists(_JSON, min_size=PROVE_MIN, max_size=30),
    st.sampled_from([1 << 20, 700, 333]),
    st.booleans(),
)
def test_a_log_of_cursors_redacts_the_same_with_and_without_proving(
    objects: list[bytes], chunk_size: int, secret_cursor: bool
) -> None:
    """Proving (and the ``jwt`` rule skipping proven cursors) changes nothing, also where a
    view ends inside a cursor (small chunks: the rule must still ask for the rest)."""
    secret = base64.urlsafe_b64encode(b'{"auth": "password=hunter2hunter2"}').rstrip(b"=")
    lines = [
        b"2026-12-05T10:00:%02d GET /executions?cursor=%s HTTP/1.1 200"
        % (n % 60, base64.urlsafe_b64encode(o).rstrip(b"="))
        for n, o in enumerate(objects)
    ]
    if secret_cursor:
        lines.insert(len(lines) // 2, b"GET /executions?cursor=" + secret + b" HTTP/1.1 200")
    log = b"\n".join(lines) + b"\n"
    policy = Policy(chunk_size=chunk_size, overlap=min(256, chunk_size // 2))
    proving = BundleRedactor(policy, key=b"k" * 32)
    plain = BundleRedactor(policy, key=b"k" * 32)
    plain.engine.decoders.prover = None
    out = b"".join(proving.transform("app.log", [log]))
    assert out == b"".join(plain.transform("app.log", [log]))
    assert secret not in out


def test_the_jwt_rule_skips_proven_cursors_but_not_one_cut_by_the_view() -> None:
    cursors = [
        base64.urlsafe_b64encode(json.dumps({"offset": n, "id": f"{n:032x}"}).encode()).rstrip(b"=")
        for n in range(PROVE_MIN + 2)
    ]
    data = b" ".join(cursors)
    decoders = _ENGINE.decoders
    whole = View(data)
    decoders._proof = None
    starts = decoders.proven_starts(whole)
    assert starts == {data.index(c) for c in cursors}
    cut = View(data, final=False)  # the last cursor runs to the view's end: more may follow
    assert data.index(cursors[-1]) not in decoders.proven_starts(cut)


def test_one_view_s_proof_never_answers_for_another() -> None:
    """Doctor's collectors redact through one engine from several threads: the starts a
    view is told to skip are always its own, whichever view was proven last."""
    make = [
        [
            base64.urlsafe_b64encode(json.dumps({"offset": n, "page": p}).encode()).rstrip(b"=")
            for n in range(PROVE_MIN + 1)
        ]
        for p in range(2)
    ]
    first, second = (View(b"x " * (7 * p) + b" ".join(cursors)) for p, cursors in enumerate(make))
    decoders = _ENGINE.decoders
    own = {}
    for view in (first, second):
        decoders._proof = None
        own[id(view)] = decoders.proven_starts(view)
    assert own[id(first)] != own[id(second)]
    for view in (first, second, first, second):
        assert decoders.proven_starts(view) == own[id(view)]


def test_threads_sharing_an_engine_redact_as_one_thread_does() -> None:
    lines = [
        b"GET /executions?cursor=%s 200"
        % base64.urlsafe_b64encode(json.dumps({"offset": n, "id": f"{n:032x}"}).encode())
        for n in range(400)
    ]
    secret = base64.urlsafe_b64encode(b'{"auth": "password=hunter2hunter2"}').rstrip(b"=")
    logs = [
        b"\n".join([*lines[k::4], b"GET /x?cursor=" + secret + b" 200"]) + b"\n" for k in range(4)
    ]
    policy = Policy(chunk_size=4096, overlap=256)
    alone = BundleRedactor(policy, key=b"k" * 32)
    expected = [b"".join(alone.transform(f"log{k}.log", [log])) for k, log in enumerate(logs)]
    shared = BundleRedactor(policy, key=b"k" * 32)
    results: dict[int, bytes] = {}

    def run(k: int) -> None:
        results[k] = b"".join(shared.transform(f"log{k}.log", [logs[k]]))

    threads = [threading.Thread(target=run, args=(k,)) for k in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert [results[k] for k in range(4)] == expected
    assert all(secret not in out for out in expected)
