"""Helpers for redaction tests: run a whole bundle's worth of files, decode output layers."""

from __future__ import annotations

import base64
import binascii
import contextlib
import gzip
import html
import json
import random
import re
import string
import warnings
import zlib
from collections.abc import Iterable
from urllib.parse import unquote_to_bytes

from bundler.source import MemorySource
from redactors import BundleRedactor, MemberRefused, Policy
from redactors.review import review_source

ALNUM = string.ascii_letters + string.digits
B64 = ALNUM + "+/"


def rand(alphabet: str, n: int, seed: object) -> str:
    """A deterministic synthetic value of the right alphabet and length."""
    rng = random.Random(str(seed))
    return "".join(rng.choice(alphabet) for _ in range(n))


def run(
    files: dict[str, bytes | str], policy: Policy | None = None, *, key: bytes = b"k" * 32
) -> tuple[dict[str, bytes], BundleRedactor, dict[str, str]]:
    """Both passes over ``files`` as a bundle would: (stored name -> output, redactor, refused)."""
    redactor = BundleRedactor(policy or Policy(), key=key)
    first: dict[str, bytes] = {}
    refused: dict[str, str] = {}
    for name, data in files.items():
        raw = data.encode() if isinstance(data, str) else data
        stored = redactor.member_name(name)
        media = "application/json" if name.endswith(".json") else "text/plain"
        try:
            first[stored] = b"".join(redactor.transform(stored, [raw], media_type=media))
        except MemberRefused as exc:
            refused[stored] = exc.reason
    out = {s: b"".join(redactor.finalize(s, [d])) for s, d in first.items()}
    return out, redactor, refused


def pass_one(name: str, data: bytes, chunk: int | None = None) -> bytes:
    """One member through a fresh redactor's pass one as ``bundler redact`` streams it: in
    pieces of ``chunk`` bytes, or in one piece."""
    pieces = [data] if chunk is None else [data[i : i + chunk] for i in range(0, len(data), chunk)]
    return b"".join(BundleRedactor(key=b"k" * 32).transform(name, pieces or [b""]))


def reviews_clean(name: str, data: bytes) -> bool:
    """Whether ``bundler review`` vouches for a member ``name`` holding ``data``."""
    return review_source(MemorySource({name: data})).clean


def gone_and_reviewed(name: str, data: bytes, secrets: Iterable[str]) -> bytes:
    """Pass one over a member that holds ``secrets``, checked as a bundle's reader would:
    every secret gone, every line kept, ``review`` refusing the input and vouching for the
    output. Returns the output, for the checks a test adds."""
    out = pass_one(name, data)
    for secret in secrets:
        assert secret.encode() not in out, secret
    assert out.count(b"\n") == data.count(b"\n"), "a line was lost"
    assert not reviews_clean(name, data), "review vouched for the unredacted input"
    assert reviews_clean(name, out), "review refused the redacted output"
    return out


_B64_RUN = re.compile(rb"[A-Za-z0-9+/_-]{12,}={0,2}")
_HEX_RUN = re.compile(rb"(?:[0-9a-fA-F]{2}){6,}")


def layers(data: bytes, depth: int = 3) -> list[bytes]:
    """``data`` and its decodings: JSON/percent/HTML unescaped, base64/hex runs, gzip."""
    found = [data]
    if depth == 0:
        return found
    candidates: list[bytes] = []
    candidates.append(unquote_to_bytes(data))
    candidates.append(html.unescape(data.decode("utf-8", "replace")).encode())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        with contextlib.suppress(UnicodeDecodeError, ValueError):
            candidates.append(data.decode("unicode_escape").encode("utf-8", "replace"))
    with contextlib.suppress(ValueError, UnicodeDecodeError):
        candidates.append(json.loads(b'"' + data.replace(b"\n", b"\\n") + b'"').encode())
    for run_ in _B64_RUN.finditer(data):
        text = run_.group()
        for altchars in (None, b"-_"):
            try:
                decoded = base64.b64decode(text + b"=" * (-len(text) % 4), altchars=altchars)
            except (binascii.Error, ValueError):
                continue
            if decoded[:2] == b"\x1f\x8b":
                try:
                    decoded = gzip.decompress(decoded)
                except (OSError, EOFError, zlib.error):
                    continue
            elif decoded[:1] == b"\x78":
                with contextlib.suppress(zlib.error):
                    candidates.append(zlib.decompress(decoded))
            candidates.append(decoded)
    for run_ in _HEX_RUN.finditer(data):
        candidates.append(binascii.unhexlify(run_.group()))
    if data[:2] == b"\x1f\x8b":
        candidates.append(gzip.decompress(data))
    for candidate in candidates:
        if candidate != data and candidate not in found:
            found.extend(layers(candidate, depth - 1))
    return found


def leaks(outputs: dict[str, bytes], secrets: list[str]) -> list[tuple[str, str]]:
    """(member, secret) for every secret still present at any decoding layer of any output."""
    found = []
    for name, data in outputs.items():
        all_layers = layers(data)
        for secret in secrets:
            needle = secret.encode()
            if any(needle in layer for layer in all_layers) or needle in name.encode():
                found.append((name, secret))
    return found


ShapeFiles = dict[str, bytes | str]
"""A small bundle for a shape test: member name -> its text."""


def redacted_lines_kept(files: ShapeFiles) -> dict[str, bytes]:
    """Both passes over ``files`` (:func:`run`): nothing refused, no line lost."""
    outputs, _, refused = run(files)
    assert refused == {}
    for member, text in files.items():
        raw = text.encode() if isinstance(text, str) else text
        assert outputs[member].count(b"\n") == raw.count(b"\n"), member
    return outputs


def assert_shape_redacted(files: ShapeFiles, secrets: list[str], keep: list[str]) -> None:
    """Every secret gone from every member at every decoding layer, every piece of evidence
    in ``keep`` still there, no line lost: a shape case of the catalog."""
    outputs = redacted_lines_kept(files)
    for secret in secrets:
        leaked = [
            m for m, data in outputs.items() if any(secret.encode() in x for x in layers(data))
        ]
        assert leaked == [], (secret, {m: outputs[m] for m in leaked})
    joined = b"\n".join(outputs.values())
    for evidence in keep:
        assert evidence.encode() in joined, (evidence, joined.decode())
