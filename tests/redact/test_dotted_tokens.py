"""A JWT-shaped token with no JOSE header is not a JWT, and its base64 JSON is still read.

Tracing baggage (``baggage=eyJ...eyJ...sig``), a signed session cookie or a homegrown
signed token has a JWT's three dotted parts but no ``alg``/``typ`` header. The ``jwt``
rule left such a token whole and unread: a password in its payload reached the bundle,
and ``bundler review`` passed it. Each part that is base64 of JSON is now decoded and
rescanned as a cursor is, and replaced whole when it holds a secret; the header part and
the signature stay (evidence of which trace, which session). A view's proof of its cursors
covers these parts too, so a log of thousands of harmless baggage tokens is not rescanned
token by token, with the same output as without the proof.
"""

from __future__ import annotations

import base64
import json

from hypothesis import given, settings
from hypothesis import strategies as st

from redactors import BundleRedactor
from redactors.decode import PROVE_MIN
from redactors.policy import Policy
from tests.support.redaction import reviews_clean

_SECRET = "Zq8rT5vW-hunter2-Kx9w"


def _part(value: object) -> bytes:
    return base64.urlsafe_b64encode(json.dumps(value).encode()).rstrip(b"=")


def _baggage(payload: object, trace: int = 7) -> bytes:
    return _part({"trace": f"{trace:016x}"}) + b"." + _part(payload) + b".gN54sxcMDXtRYV95"


def _redact(data: bytes, *, proving: bool = True, policy: Policy | None = None) -> bytes:
    redactor = BundleRedactor(policy, key=b"k" * 32)
    if not proving:
        redactor.engine.decoders.prover = None
    return b"".join(redactor.transform("server.log", [data]))


def test_a_secret_in_a_baggage_payload_is_replaced_and_the_rest_of_the_token_kept() -> None:
    token = _baggage({"password": _SECRET})
    out = _redact(b"propagated context baggage=" + token + b"\n")
    header, _, signature = token.split(b".")
    assert _part({"password": _SECRET}) not in out
    assert out.startswith(b"propagated context baggage=" + header + b".[REDACTED:")
    assert out.endswith(b"." + signature + b"\n")


def test_harmless_baggage_and_a_real_jwt_read_as_before() -> None:
    baggage = b"baggage=" + _baggage({"sampled": True, "n": 76}) + b"\n"
    assert _redact(baggage) == baggage
    jwt = _part({"alg": "HS256", "typ": "JWT"}) + b"." + _part({"sub": "x"}) + b".c2lnbmF0dXJl"
    out = _redact(b"token=" + jwt + b"\n")
    assert out.startswith(b"token=[REDACTED:jwt:")


def test_review_does_not_call_such_a_token_clean() -> None:
    data = b"baggage=" + _baggage({"api_key": _SECRET}) + b"\n"
    assert not reviews_clean("server.log", data)


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.integers(min_value=0, max_value=10**6), min_size=PROVE_MIN, max_size=30),
    st.sampled_from([1 << 20, 700, 333]),
    st.booleans(),
)
def test_a_log_of_baggage_redacts_the_same_with_and_without_proving(
    counts: list[int], chunk_size: int, secret: bool
) -> None:
    lines = [
        b"2026-12-05 10:00:%02d propagated context baggage=%s"
        % (n % 60, _baggage({"sampled": True, "n": c}, trace=n))
        for n, c in enumerate(counts)
    ]
    if secret:
        lines.insert(len(lines) // 2, b"baggage=" + _baggage({"token": _SECRET}))
    log = b"\n".join(lines) + b"\n"
    policy = Policy(chunk_size=chunk_size, overlap=min(256, chunk_size // 2))
    out = _redact(log, policy=policy)
    assert out == _redact(log, proving=False, policy=policy)
    assert _part({"token": _SECRET}) not in out
    assert (out == log) is not secret
