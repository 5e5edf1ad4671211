"""Damaged bundles of every shape end in a one-line bundler error, never another exception."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bundler.errors import BundlerError
from tests.support.archive import build_bundle, open_test_bundle

MEMBERS = {
    "evidence/workers.json": b'{"workers": [{"name": "w1", "state": "online"}]}',
    "hosts/h01/logs/0.log": b"".join(b"line %d heartbeat ok\n" % i for i in range(3000)),
}


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    path = tmp_path_factory.mktemp("fuzz") / "b.zip"
    return build_bundle(path, MEMBERS).path.read_bytes()


def _open_and_read_everything(path: Path, lenient: bool) -> None:
    with open_test_bundle(path, lenient=lenient) as reader:
        reader.check()
        for name in reader.names():
            reader.read_bytes(name)


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    edits=st.lists(st.tuples(st.floats(0, 1, exclude_max=True), st.integers(1, 255)), max_size=4),
    cut=st.one_of(st.none(), st.floats(0, 1)),
    lenient=st.booleans(),
)
def test_damage_never_escapes_as_a_traceback(
    pristine: bytes,
    tmp_path: Path,
    edits: list[tuple[float, int]],
    cut: float | None,
    lenient: bool,
) -> None:
    data = bytearray(pristine)
    for where, xor in edits:
        data[int(where * len(data))] ^= xor
    if cut is not None:
        del data[int(cut * len(data)) :]
    path = tmp_path / "damaged.zip"
    path.write_bytes(bytes(data))
    message = ""
    try:
        _open_and_read_everything(path, lenient)
    except BundlerError as exc:  # anything else fails the test with its traceback
        message = str(exc)
    assert "\n" not in message
