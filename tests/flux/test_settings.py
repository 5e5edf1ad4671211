"""Effective Flux settings: defaults < flux.toml < FLUX_* environment < the server's own log."""

from __future__ import annotations

from bundler.products.flux.settings import (
    DEFAULTS,
    REDACTED,
    coerce,
    effective_settings,
    env_key,
    flatten_toml,
    parse_env_listing,
)

TOML = """
[flux]
server_port = 0
database_url = "postgresql://flux:hunter2@db:5432/flux"

[flux.workers]
heartbeat_timeout = 45
bootstrap_token = "s3cr3t-token-value"

[flux.security.auth]
allow_anonymous = true
"""

ENV_LISTING = """\
FLUX_WORKERS__HEARTBEAT_TIMEOUT=6
FLUX_WORKERS__HEARTBEAT_INTERVAL=2
FLUX_SECURITY__ENCRYPTION__ENCRYPTION_KEY=<redacted>
FLUX_OBSERVABILITY__ENABLED=true
"""


def test_env_names_and_values_follow_flux_conventions():
    assert env_key("FLUX_WORKERS__HEARTBEAT_TIMEOUT") == "workers.heartbeat_timeout"
    assert env_key("FLUX_SECURITY__AUTH__ALLOW_ANONYMOUS") == "security.auth.allow_anonymous"
    assert env_key("FLUX_LOG_LEVEL") == "log_level"
    assert env_key("PATH") is None
    assert (coerce("true"), coerce("6"), coerce("1.5"), coerce("DEBUG")) == (True, 6, 1.5, "DEBUG")


def test_env_listing_keeps_only_flux_assignments():
    variables = parse_env_listing(ENV_LISTING + "PATH=/bin\nnot an assignment\n")
    assert variables["FLUX_WORKERS__HEARTBEAT_INTERVAL"] == "2"
    assert set(variables) == {
        "FLUX_WORKERS__HEARTBEAT_TIMEOUT",
        "FLUX_WORKERS__HEARTBEAT_INTERVAL",
        "FLUX_SECURITY__ENCRYPTION__ENCRYPTION_KEY",
        "FLUX_OBSERVABILITY__ENABLED",
    }


def test_precedence_and_sources():
    env = parse_env_listing(ENV_LISTING)
    settings = effective_settings(
        toml_text=TOML, env=env, log_timings={"workers.eviction_grace_period": 6}
    )
    assert settings.get("workers.heartbeat_timeout") == 6
    assert settings.source("workers.heartbeat_timeout") == "env"
    assert settings.get("security.auth.allow_anonymous") is True
    assert settings.source("security.auth.allow_anonymous") == "flux.toml"
    assert settings.get("workers.eviction_grace_period") == 6
    assert settings.source("workers.eviction_grace_period") == "log"
    assert settings.get("workers.offline_ttl") == DEFAULTS["workers.offline_ttl"]
    assert settings.source("workers.offline_ttl") == "default"
    policy = settings.heartbeat_policy()
    assert (policy.interval_s, policy.timeout_s, policy.grace_s, policy.source) == (
        2,
        6,
        6,
        "settings",
    )


def test_secret_values_never_survive():
    settings = effective_settings(toml_text=TOML, env=None, log_timings={})
    everything = repr(settings.as_dict())
    assert "s3cr3t-token-value" not in everything
    assert "hunter2" not in everything
    assert settings.get("workers.bootstrap_token") == REDACTED
    assert settings.get("database_url") == "postgresql://<redacted>@db:5432/flux"


def test_defaults_when_nothing_is_set_and_unknown_when_nothing_was_read():
    defaults = effective_settings(toml_text="", env={}, log_timings={}).heartbeat_policy()
    assert (defaults.interval_s, defaults.timeout_s, defaults.grace_s) == (10, 30, 30)
    assert defaults.source == "default"
    unread = effective_settings(toml_text=None, env=None, log_timings={}).heartbeat_policy()
    assert unread.source == "unknown"
    assert unread.timeout_s == 30


def test_broken_toml_is_ignored_not_fatal():
    assert flatten_toml("[flux\nbroken = ") == {}
    assert flatten_toml('[tool]\nx = 1\n[flux]\nlog_level = "DEBUG"') == {"log_level": "DEBUG"}
