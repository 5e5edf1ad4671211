"""A password that cannot leak by accident.

Passwords travel through dataclasses, exceptions and debug output; wrapping
them makes ``repr()``, ``str()`` and f-strings print ``***`` so a traceback
or a log line never carries one. The bytes are reachable only through an
explicit :meth:`Secret.reveal`.
"""

from __future__ import annotations

import hmac


class Secret:
    """Non-empty secret bytes (a bundle password) that never print themselves."""

    __slots__ = ("_value",)

    def __init__(self, value: bytes | str) -> None:
        data = value.encode("utf-8") if isinstance(value, str) else bytes(value)
        if not data:
            raise ValueError("a secret cannot be empty")
        self._value = data

    def reveal(self) -> bytes:
        """The secret bytes; call only where they are handed to a cipher or shown once."""
        return self._value

    def __len__(self) -> int:
        return len(self._value)

    def __repr__(self) -> str:
        return "Secret(***)"

    __str__ = __repr__

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Secret):
            return NotImplemented
        return hmac.compare_digest(self._value, other._value)

    def __hash__(self) -> int:
        return hash(("Secret", len(self._value)))

    def __reduce__(self) -> tuple[object, ...]:
        raise TypeError("a Secret cannot be pickled")
