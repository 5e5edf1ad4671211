"""A pass-through stream that hashes what flows through it.

Pass two of ``bundler redact`` inflates pass one's compressed output to scan
it; hashing on the way proves, at the cost of one sha256, that the stream the
zip will store decodes to exactly what pass one hashed.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator


class Hashed:
    """Iterate ``chunks`` unchanged while counting and hashing them."""

    def __init__(self, chunks: Iterable[bytes]) -> None:
        self._chunks = iter(chunks)
        self._digest = hashlib.sha256()
        self.size = 0

    def __iter__(self) -> Iterator[bytes]:
        for chunk in self._chunks:
            self._digest.update(chunk)
            self.size += len(chunk)
            yield chunk

    def finish(self) -> tuple[int, str]:
        """Read whatever the consumer left, then ``(size, sha256 hex)`` of everything."""
        for _ in self:
            pass
        return self.size, self._digest.hexdigest()
