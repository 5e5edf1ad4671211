"""How a remote command's channel ended: what paramiko does not keep for us.

paramiko reads a channel's ``exit-status`` but drops an ``exit-signal`` request (RFC 4254
6.10: sshd sends it when the command was killed by a signal), so both "killed by SIGKILL"
and "the connection died" read as exit status -1. It also closes every channel of a
connection that dies *before* it marks the connection inactive, so a collector that
asks ``is_active()`` right after its channel closed may still hear "yes" and mistake a
lost connection for a command that failed.

:func:`watch` wraps the two channel handlers of one transport (its own copy of
paramiko's dispatch table, nothing global) to note, per channel, the signal's name and
whether the *server* closed the channel. A channel closed without the server saying so
was closed because the connection was lost. When a future paramiko has no such table,
nothing is watched and :func:`end_of` says so (``None``): callers then fall back to
``is_active()``, and a signal reads as "ended without an exit status".
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

import paramiko
from paramiko.common import MSG_CHANNEL_CLOSE, MSG_CHANNEL_REQUEST

_Handler = Callable[[paramiko.Channel, paramiko.Message], None]
_ATTRIBUTE = "_bundler_channel_end"


@dataclass
class ChannelEnd:
    """What the server said about how one channel ended."""

    signal: str | None = None
    """The signal's name as the server sent it (``TERM``, ``KILL``), when one killed it."""
    closed_by_server: bool = False


def watch(transport: paramiko.Transport) -> None:
    """Note exit signals and server-side closes on every channel of ``transport``."""
    table = getattr(type(transport), "_channel_handler_table", None)
    if not isinstance(table, dict) or not {MSG_CHANNEL_REQUEST, MSG_CHANNEL_CLOSE} <= set(table):
        return
    on_request: _Handler = table[MSG_CHANNEL_REQUEST]
    on_close: _Handler = table[MSG_CHANNEL_CLOSE]

    def request(channel: paramiko.Channel, message: paramiko.Message) -> None:
        _note_signal(channel, message)
        on_request(channel, message)

    def close(channel: paramiko.Channel, message: paramiko.Message) -> None:
        _end(channel).closed_by_server = True  # before paramiko marks it closed
        on_close(channel, message)

    own = {**table, MSG_CHANNEL_REQUEST: request, MSG_CHANNEL_CLOSE: close}
    transport._channel_handler_table = own  # type: ignore[attr-defined]
    transport.__dict__["_bundler_watched"] = True


def end_of(channel: paramiko.Channel) -> ChannelEnd | None:
    """What was noted about ``channel``; None when its transport is not watched."""
    transport = channel.get_transport()
    if not getattr(transport, "_bundler_watched", False):
        return None
    return _end(channel)


def _end(channel: paramiko.Channel) -> ChannelEnd:
    end: ChannelEnd = channel.__dict__.setdefault(_ATTRIBUTE, ChannelEnd())
    return end


def _note_signal(channel: paramiko.Channel, message: paramiko.Message) -> None:
    """Read an ``exit-signal`` request's signal name, leaving the message as it was."""
    packet = message.packet
    at = packet.tell()
    try:
        if message.get_text() == "exit-signal":
            message.get_boolean()  # want-reply
            _end(channel).signal = _signal_name(message.get_text())
    except (UnicodeDecodeError, ValueError):  # malformed: paramiko's to judge, not ours
        pass
    finally:
        packet.seek(at)


def _signal_name(sent: str) -> str:
    """The name as sent (RFC 4254: without ``SIG``), kept to what a signal name can be:
    the server is not trusted to send a short, printable one."""
    name = re.sub(r"[^A-Za-z0-9@._+-]", "", sent.removeprefix("SIG"))[:32]
    return name or "(unnamed)"
