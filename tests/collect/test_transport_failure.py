"""A transport failure always says why, also when the library's exception is blank."""

from __future__ import annotations

import paramiko
import pytest

from bundler.collect.errors import TransportError, transport_failure


@pytest.mark.parametrize(
    ("exc", "said"),
    [
        (EOFError(), "SSH command failed: the connection closed"),
        (paramiko.SSHException(), "SSH command failed: SSHException"),
        (OSError(104, "Connection reset by peer"), "SSH command failed: [Errno 104] Connection"),
        (paramiko.SSHException("  Channel closed.  "), "SSH command failed: Channel closed."),
    ],
)
def test_the_message_never_ends_at_the_colon(exc: BaseException, said: str) -> None:
    error = transport_failure("SSH command", exc)
    assert isinstance(error, TransportError)
    assert str(error).startswith(said)
    assert not str(error).rstrip().endswith(":")
