"""Returning freed memory to the system: glibc's malloc_trim, a no-op where there is none."""

from __future__ import annotations

import sys

import pytest

from redactors import memory


def test_on_linux_the_c_library_is_found_and_trimmed() -> None:
    if not sys.platform.startswith("linux"):
        pytest.skip("glibc only")
    assert memory.glibc() is not None
    freed = bytearray(64 << 20)  # freed by glibc (large: mmapped), then trimmed
    del freed
    assert isinstance(memory.release_free_memory(), bool)


def test_without_a_c_library_nothing_is_trimmed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(memory, "glibc", lambda: None)
    assert memory.release_free_memory() is False


def test_a_c_library_without_malloc_trim_is_not_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    class Musl:  # no malloc_trim attribute, as ctypes raises AttributeError for a missing symbol
        pass

    monkeypatch.setattr(memory, "glibc", lambda: Musl())
    assert memory.release_free_memory() is False
