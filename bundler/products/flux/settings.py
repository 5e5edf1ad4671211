"""Flux's effective settings, rebuilt from what was collected: defaults < flux.toml < FLUX_*.

Flux reads ``FLUX_<KEY>`` / ``FLUX_<SECTION>__<KEY>`` variables first, then
``./flux.toml`` (``[flux]`` and its sub-tables), then built-in defaults
(flux-observed §3). The doctor never runs Flux's own loader on a customer
host; it reads the file and the running process's start-up environment and
applies the same precedence here. Only settings that matter for diagnosis are
kept, and any value whose key names a secret is replaced by ``<redacted>``.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from typing import Any, Literal

from schemas.evidence import HeartbeatPolicy

SECRET_KEY = re.compile(r"token|secret|key|password|credential", re.IGNORECASE)
REDACTED = "<redacted>"
URL_CREDENTIALS = re.compile(r"^([a-z][a-z0-9+.-]*://)[^/@]+@", re.IGNORECASE)

DEFAULTS: dict[str, Any] = {
    "workers.heartbeat_interval": 10,
    "workers.heartbeat_timeout": 30,
    "workers.eviction_grace_period": 30,
    "workers.offline_ttl": 7200,
    "workers.max_concurrent_executions": 16,
    "workers.loop_lag_threshold": 1.0,
    "workers.loop_lag_probe_interval": 1.0,
    "workers.reconnect_max_delay": 60,
    "workers.claim_timeout": 60,
    "workers.park_ttl": 0,
    "workers.terminal_checkpoint_deadline": 300,
    "workers.default_runner": "subprocess",
    "workers.bootstrap_token_enabled": True,
    "workers.control_socket_enabled": True,
    "security.auth.enabled": False,
    "security.auth.allow_anonymous": False,
    "observability.enabled": False,
    "log_level": "INFO",
    "database_url": "sqlite:///.flux/flux.db",
    "home": ".flux",
}
"""flux-core 0.87.5 defaults (``FluxConfig.load()`` in an empty directory)."""

HEARTBEAT_KEYS = (
    "workers.heartbeat_interval",
    "workers.heartbeat_timeout",
    "workers.eviction_grace_period",
)


@dataclass
class EffectiveSettings:
    """Values and where each came from: 'env', 'flux.toml', 'log' or 'default'."""

    values: dict[str, Any] = field(default_factory=dict)
    sources: dict[str, str] = field(default_factory=dict)
    read: bool = False
    """True when at least one real config source (file or environment) was read."""

    def get(self, key: str) -> Any:
        return self.values.get(key, DEFAULTS.get(key))

    def source(self, key: str) -> str:
        """Where ``key``'s value came from; a value nobody set is Flux's ``default`` only when
        its configuration was read, else ``unknown`` (assumed: a rule must not conclude on it)."""
        return self.sources.get(key, "default" if self.read else "unknown")

    def set(self, key: str, value: Any, source: str) -> None:
        if SECRET_KEY.search(key):
            value = REDACTED
        elif isinstance(value, str) and "://" in value:
            value = URL_CREDENTIALS.sub(r"\1<redacted>@", value)
        self.values[key] = value
        self.sources[key] = source

    def heartbeat_policy(self) -> HeartbeatPolicy:
        explicit = any(key in self.sources for key in HEARTBEAT_KEYS)
        interval, timeout, grace = (float(self.get(key)) for key in HEARTBEAT_KEYS)
        origin: Literal["settings", "default", "unknown"] = (
            "settings" if explicit else "default" if self.read else "unknown"
        )
        return HeartbeatPolicy(interval_s=interval, timeout_s=timeout, grace_s=grace, source=origin)

    def as_dict(self) -> dict[str, Any]:
        """Every diagnostic key with its effective value (defaults included)."""
        return {key: self.get(key) for key in sorted(set(DEFAULTS) | set(self.values))}


def coerce(text: str) -> Any:
    """An environment string as Flux's settings model would read it."""
    lowered = text.strip().lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            continue
    return text


def env_key(variable: str) -> str | None:
    """``FLUX_WORKERS__HEARTBEAT_TIMEOUT`` -> ``workers.heartbeat_timeout``."""
    if not variable.startswith("FLUX_"):
        return None
    return variable[5:].lower().replace("__", ".")


def parse_env_listing(text: str) -> dict[str, str]:
    """``NAME=value`` lines (a process environment, or a unit's ``Environment=``) -> dict."""
    variables: dict[str, str] = {}
    for line in text.splitlines():
        name, sep, value = line.strip().partition("=")
        if sep and name.startswith("FLUX_"):
            variables[name] = value
    return variables


def flatten_toml(text: str) -> dict[str, Any]:
    """``[flux]`` and its sub-tables of a flux.toml as dotted keys; {} when unparseable."""
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return {}
    flux = document.get("flux")
    flat: dict[str, Any] = {}

    def walk(prefix: str, table: dict[str, Any]) -> None:
        for key, value in table.items():
            dotted = f"{prefix}{key}"
            if isinstance(value, dict):
                walk(f"{dotted}.", value)
            else:
                flat[dotted] = value

    if isinstance(flux, dict):
        walk("", flux)
    return flat


def effective_settings(
    *, toml_text: str | None, env: dict[str, str] | None, log_timings: dict[str, int]
) -> EffectiveSettings:
    """Apply Flux's precedence to what was collected (any source may be missing).

    The server's own start-up line (``Heartbeat reaper started (interval=2s,
    timeout=6s)``) wins over both files and environment: it is what the
    running process actually uses, even if ``flux.toml`` was edited since.
    """
    settings = EffectiveSettings(read=toml_text is not None or env is not None)
    for key, value in flatten_toml(toml_text or "").items():
        settings.set(key, value, "flux.toml")
    for variable, value in (env or {}).items():
        setting = env_key(variable)
        if setting:
            settings.set(setting, coerce(value), "env")
    for key, value in log_timings.items():
        settings.set(key, value, "log")
    return settings
