"""ssh_config lookups that stay cheap when the config names a thousand hosts.

OpenSSH (and paramiko) answer ``lookup(host)`` by testing *every* ``Host`` /
``Match`` stanza in order, so resolving N aliases of an N-stanza config costs
N² pattern matches; paramiko also calls ``getpass.getuser()`` once per stanza
tested. A fleet's ssh_config is mostly one literal ``Host alias`` stanza per
machine (1,000 hosts took 30 s of doctor's start-up before this index).

A stanza whose ``Host`` patterns are all literal names (no ``*``, ``?``,
``[``, ``!``) and that has no ``Match`` can only apply to those names, so it
is indexed by them; every other stanza is tested for every host, as before.
A lookup hands paramiko, in file order, only the stanzas that can apply, so
the result is exactly paramiko's (first value wins, IdentityFile accumulates,
tokens expand). With ``CanonicalizeHostname`` anywhere in the file the host
name can change between passes, so the index steps aside and paramiko sees
the whole file.
"""

from __future__ import annotations

from typing import Any

import paramiko

WILDCARDS = frozenset("*?[!")


class StanzaIndex:
    """A drop-in for ``paramiko.SSHConfig.lookup`` over a parsed config."""

    def __init__(self, config: paramiko.SSHConfig) -> None:
        self._full = config
        stanzas: list[dict[str, Any]] = list(getattr(config, "_config", []))
        self._stanzas = stanzas
        self._general: list[int] = []
        self._by_name: dict[str, list[int]] = {}
        self._indexed = bool(stanzas) and not any(
            "canonicalizehostname" in stanza.get("config", {}) for stanza in stanzas
        )
        for position, stanza in enumerate(stanzas):
            names = _literal_names(stanza)
            if names is None:
                self._general.append(position)
                continue
            for name in names:
                self._by_name.setdefault(name, []).append(position)

    @property
    def indexed(self) -> bool:
        """False when every lookup goes through the whole file (see the module docstring)."""
        return self._indexed

    def candidates(self, host: str) -> list[int]:
        """Positions (file order) of the stanzas a lookup of ``host`` tests."""
        if not self._indexed:
            return list(range(len(self._stanzas)))
        return sorted({*self._general, *self._by_name.get(host, ())})

    def lookup(self, host: str) -> paramiko.SSHConfigDict:
        if not self._indexed:
            return self._full.lookup(host)
        subset = paramiko.SSHConfig()
        subset._config = [self._stanzas[i] for i in self.candidates(host)]  # type: ignore[attr-defined]
        return subset.lookup(host)


def _literal_names(stanza: dict[str, Any]) -> list[str] | None:
    """The names a ``Host`` stanza can only apply to, or None if it may apply more widely."""
    if stanza.get("matches"):
        return None
    patterns = stanza.get("host")
    if isinstance(patterns, str):
        patterns = patterns.split(",")
    if not patterns:
        return None
    if any(WILDCARDS & set(pattern) for pattern in patterns):
        return None
    return list(patterns)
