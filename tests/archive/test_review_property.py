"""Property: whatever is done to a bundle's bytes, ``review`` passes it only if ``verify`` would.

Random insertions, appends, prepends, and edits of the zip comment, per-file
comments and extra fields of a valid bundle (what anyone can do without the
password). ``review`` is the upload gate: it may accept the result only when
the file is still one ``verify`` accepts completely. Bounded (a few dozen
examples) so it stays a unit test.
"""

from __future__ import annotations

import struct
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bundler.archive import open_bundle, verify_bundle
from bundler.errors import BundlerError
from bundler.redaction.reviewing import review_path
from bundler.secret_options import OpenSecrets
from tests.support.archive import PASSWORD, build_bundle

from .readers import SECRET
from .zipsurgery import Zip, extra_field

MEMBERS = {
    "logs/a.log": b"2024-05-01 worker w1 heartbeat ok\n" * 20,
    "evidence/note.txt": b"fine\n",
}

payloads = st.one_of(st.binary(min_size=1, max_size=64), st.just(SECRET), st.just(b"PK\x03\x04"))
mutation = st.one_of(
    st.tuples(st.just("insert"), st.floats(0, 1), payloads),
    st.tuples(st.just("append"), payloads),
    st.tuples(st.just("prepend"), payloads),
    st.tuples(st.just("zip-comment"), st.binary(max_size=80) | st.just(SECRET)),
    st.tuples(st.just("file-comment"), st.integers(0, 3), payloads),
    st.tuples(st.just("extra"), st.integers(0, 3), st.integers(0, 0xFFFF), payloads),
)


def _mutate(raw: bytes, change: tuple[object, ...]) -> bytes:
    kind = change[0]
    if kind == "insert":
        at = int(float(change[1]) * len(raw))  # type: ignore[arg-type]
        return raw[:at] + change[2] + raw[at:]  # type: ignore[operator]
    if kind == "append":
        return raw + change[1]  # type: ignore[operator]
    if kind == "prepend":
        return change[1] + raw  # type: ignore[operator]
    try:
        archive = Zip.parse(raw)
    except (AssertionError, IndexError, ValueError, struct.error):
        return raw + b"\x00"  # an earlier change broke the directory: damage it further
    if kind == "zip-comment":
        archive.comment = change[1]  # type: ignore[assignment]
    elif kind == "file-comment":
        entry = archive.entries[int(change[1]) % len(archive.entries)]  # type: ignore[call-overload]
        entry.comment = change[2]  # type: ignore[assignment]
    else:
        entry = archive.entries[int(change[1]) % len(archive.entries)]  # type: ignore[call-overload]
        entry.extra += extra_field(int(change[2]), change[3])  # type: ignore[call-overload, arg-type]
    return archive.pack()


@pytest.fixture(scope="module")
def original(tmp_path_factory: pytest.TempPathFactory) -> tuple[bytes, OpenSecrets, Path]:
    folder = tmp_path_factory.mktemp("property")
    bundle = build_bundle(folder / "valid.zip", MEMBERS).path
    password_file = folder / "password"
    password_file.write_text(PASSWORD + "\n")
    return bundle.read_bytes(), OpenSecrets(password_file=password_file), folder


def _verify_accepts(path: Path, secrets: OpenSecrets) -> bool:
    try:
        with open_bundle(path, secrets, lenient=True) as reader:
            return verify_bundle(reader).ok
    except BundlerError:
        return False


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(changes=st.lists(mutation, min_size=1, max_size=3))
def test_review_passes_only_what_verify_accepts(
    original: tuple[bytes, OpenSecrets, Path], changes: list[tuple[object, ...]]
) -> None:
    raw, secrets, folder = original
    data = raw
    for change in changes:
        data = _mutate(data, change)
    path = folder / "mutated.zip"
    path.write_bytes(data)
    refusal: BundlerError | None = None
    try:
        result = review_path(path, secrets)
    except BundlerError as exc:
        refusal = exc
    if refusal is not None:
        assert refusal.exit_code == 2
        assert "\n" not in refusal.message
        return
    assert result.clean is False or _verify_accepts(path, secrets), changes
    if SECRET in data and SECRET not in raw:
        assert not result.clean, changes  # a plaintext secret anywhere is never "clean"


def test_the_unmodified_bundle_passes_both(original: tuple[bytes, OpenSecrets, Path]) -> None:
    """The property is not vacuous: the gate does open for a bundle bundler wrote."""
    raw, secrets, folder = original
    path = folder / "unchanged.zip"
    path.write_bytes(raw)
    assert review_path(path, secrets).clean
    assert _verify_accepts(path, secrets)
