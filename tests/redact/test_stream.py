"""Streaming: chunk cuts never hide a secret (redaction.md §5 cases 62 and 63)."""

from __future__ import annotations

import json

import pytest

from redactors import BundleRedactor, Policy
from tests.support.redaction import ALNUM, B64, rand

CHUNK = 4096
OVERLAP = 512
SECRETS = {
    "github": ("token ghp_{v}", "ghp_" + rand(ALNUM, 36, "s-gh")),
    "kv": ("password={v}", "Str4ddle-Pw!" + rand(ALNUM, 6, "kv")),
    "url": ("postgres://app:{v}@db/x", "Url-Str4ddle-" + rand(ALNUM, 6, "url")),
    "jwt": ("Bearer {v}", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0." + rand(ALNUM, 43, "jwt")),
    "argument": ("$ htpasswd -b users alice {v}", "Arg-Str4ddle-" + rand(ALNUM, 6, "arg")),
    "piped": ("$ echo {v} | docker login --password-stdin", "Pipe-Str4ddle-" + rand(ALNUM, 6, "p")),
    "heredoc": ("$ chpasswd <<'END'\nalice:{v}\nEND", "Here-Str4ddle-" + rand(ALNUM, 6, "h")),
    "user-flag": ("oc login -u dev -p {v} https://api", "Flag-Str4ddle-" + rand(ALNUM, 6, "f")),
}


def _redact(data: bytes, chunk: int = CHUNK) -> bytes:
    redactor = BundleRedactor(Policy(chunk_size=CHUNK, overlap=OVERLAP), key=b"k" * 32)
    pieces = [data[i : i + chunk] for i in range(0, len(data), chunk)]
    first = b"".join(redactor.transform("s.log", pieces, media_type="text/plain"))
    return b"".join(
        redactor.finalize("s.log", [first[i : i + chunk] for i in range(0, len(first), chunk)])
    )


@pytest.mark.parametrize("kind", sorted(SECRETS))
def test_a_secret_at_every_offset_around_the_chunk_boundary_is_caught(kind: str) -> None:
    """Case 62: planted at chunk_size - k for k = 1 .. len(secret) (and a few past it)."""
    template, secret = SECRETS[kind]
    line = template.replace("{v}", secret)
    filler = "".join(f"line {i} nothing to see here\n" for i in range(400))
    for k in range(1, len(line) + 3):
        prefix = filler[: CHUNK * 2 - k - 1].rsplit("\n", 1)[0] + "\n"
        prefix += "x" * (CHUNK * 2 - k - len(prefix))
        data = (prefix + line + "\n" + filler).encode()
        out = _redact(data)
        assert secret.encode() not in out, (kind, k)
        assert out.count(b"nothing to see here") == data.count(b"nothing to see here")


def test_a_secret_on_a_line_longer_than_the_buffer_is_caught() -> None:
    """Case 63: a 5 MB single-line minified JSON, secrets in the middle and at the end."""
    middle, end = "Mid-S3cret-" + rand(ALNUM, 8, "m"), "End-S3cret-" + rand(ALNUM, 8, "e")
    items = [{"id": i, "v": rand(ALNUM, 40, i)} for i in range(90000)]
    items.insert(45000, {"password": middle})
    items.append({"api_key": end, "token": "ghp_" + rand(ALNUM, 36, "t")})
    data = json.dumps(items, separators=(",", ":")).encode()
    assert len(data) > 5_000_000
    assert b"\n" not in data
    redactor = BundleRedactor(Policy(chunk_size=1 << 20), key=b"k" * 32)
    pieces = [data[i : i + 65536] for i in range(0, len(data), 65536)]
    first = b"".join(redactor.transform("big.log", pieces, media_type="text/plain"))
    out = b"".join(redactor.finalize("big.log", [first]))
    decoded = json.dumps(
        json.loads(out)
    ).encode()  # (the layer check of test_corpus is too slow at 5 MB)
    for secret in (middle, end, "ghp_" + rand(ALNUM, 36, "t")):
        assert secret.encode() not in out
        assert secret.encode() not in decoded
    assert json.loads(out)[0] == items[0]


def test_a_private_key_cut_by_chunks_is_redacted_whole() -> None:
    body = [rand(B64, 64, f"k{i}") for i in range(30)]
    key = "\n".join(["-----BEGIN RSA PRIVATE KEY-----", *body, "-----END RSA PRIVATE KEY-----"])
    for shift in range(0, 300, 37):
        data = ("a\n" * (CHUNK // 2 - shift) + key + "\ntrailer\n").encode()
        out = _redact(data, chunk=997)
        assert [line for line in body if line.encode() in out] == []
        assert out.endswith(b"trailer\n")


def test_value_on_the_next_line_across_a_boundary() -> None:
    for pad in range(CHUNK - 40, CHUNK + 40, 3):
        data = ("x" * pad + "\npassword:\n  NextLine-Pw-77\n" + "tail\n" * 10).encode()
        out = _redact(data)
        assert b"NextLine-Pw-77" not in out, pad


def test_output_is_byte_exact_outside_redacted_spans() -> None:
    text = (
        "".join(f"{i}\tplain line with tabs\r\n" for i in range(3000)).encode()
        + b"no newline at end"
    )
    assert _redact(text) == text
