"""A doctor request, checked completely before the first connection is made.

Every flag, the inventory, the ssh_config and the known_hosts file are read
and validated here, so a mistake is a one-line usage error (exit 2) that
costs no collection and writes no file.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from ..archive.limits import ReaderLimits
from ..collect.context import EngineSettings
from ..collect.defaults import (
    DEFAULT_API_CONCURRENCY,
    DEFAULT_CONCURRENCY,
    DEFAULT_DEADLINE_S,
    DEFAULT_LOG_BYTES,
    DEFAULT_LOG_LINES,
    DEFAULT_TIMEOUT_S,
)
from ..collect.inventory import load_inventory
from ..collect.targets import HostTarget, build_targets
from ..collect.tasks.since import parse_since
from ..errors import UsageError
from ..products import Profile, get_profile
from ..secret_options import SealOptions
from ..source import max_json_bytes

if TYPE_CHECKING:
    from redactors.custom import CustomRules

    from ..collect.transports.ssh import SshConnector
    from ..collect.transports.sshconfig import SshEndpoint


@dataclass(frozen=True)
class DoctorRequest:
    profile: str | None = None
    server: str | None = None
    token_env: str | None = None
    ca_cert: Path | None = None
    insecure: bool = False
    ssh: tuple[str, ...] = ()
    inventory: Path | None = None
    local: bool = False
    ssh_config: Path | None = None
    known_hosts: Path | None = None
    accept_new_host_keys: bool = False
    since: str | None = None
    log_lines: int = DEFAULT_LOG_LINES
    log_bytes: int = DEFAULT_LOG_BYTES
    concurrency: int = DEFAULT_CONCURRENCY
    api_concurrency: int = DEFAULT_API_CONCURRENCY
    timeout_s: float = DEFAULT_TIMEOUT_S
    deadline_s: float | None = DEFAULT_DEADLINE_S
    bundle: Path | None = None
    seal: SealOptions = field(default_factory=SealOptions)
    use_agent: bool = True
    rules: Path | None = None
    """Custom redaction rule file (as ``bundler redact --rules``)."""
    keywords: tuple[str, ...] = ()
    """Extra words redacted everywhere (``--keyword``)."""
    obfuscate: tuple[str, ...] = ()
    """``("network",)``: pseudonymize IPs, MACs, host and user names (``--obfuscate``)."""
    bundle_limits: ReaderLimits = field(default_factory=ReaderLimits)
    """What the bundle must fit: the readers' defaults, never this machine's ``BUNDLER_MAX_*``
    (the recipient's reader applies its own). Collection leaves out what would not fit
    (:mod:`bundler.archive.room`); tests make them small."""


@dataclass
class PreparedRun:
    profile: Profile | None
    server_url: str | None
    token: str | None = field(repr=False)
    targets: list[HostTarget]
    endpoints: dict[str, SshEndpoint]
    connector: SshConnector | None
    settings: EngineSettings
    custom_rules: CustomRules | None = None


def prepare(
    request: DoctorRequest,
    environ: Mapping[str, str],
    warn: Callable[[str], None],
    now: Callable[[], datetime],
    home: Path,
) -> PreparedRun:
    """Validate ``request`` and resolve everything collection needs; UsageError on any problem.

    The steps run in the order a user would fix them: which product and server,
    its token, what to collect, the limits, then the SSH files.
    """
    profile = load_profile(request.profile)
    server_url = _server_url(request, profile)
    token = _token(request, profile, server_url, environ, warn)
    targets = _targets(request, server_url)
    _check_limits(request)
    max_json_bytes(environ)  # its own normalizer and live verdict read with it, as analyze does
    custom_rules = _custom_rules(request.rules)
    since = parse_since(request.since, now()) if request.since else None
    endpoints, connector = _ssh(request, targets, home)
    settings = EngineSettings(
        concurrency=request.concurrency,
        http_lane_limit=request.api_concurrency,
        timeout_s=request.timeout_s,
        deadline_s=request.deadline_s,
        log_bytes=request.log_bytes,
        log_lines=request.log_lines,
        since=since,
    )
    return PreparedRun(
        profile, server_url, token, targets, endpoints, connector, settings, custom_rules
    )


def _custom_rules(path: Path | None) -> CustomRules | None:
    """The ``--rules`` file, validated now: a typo costs no collection (one-line error)."""
    if path is None:
        return None
    from redactors.custom import load_rules
    from redactors.errors import RulesError

    try:
        return load_rules(path)
    except RulesError as exc:
        raise UsageError(str(exc)) from None


def _server_url(request: DoctorRequest, profile: Profile | None) -> str | None:
    """The control plane to read (``--server``, else the profile's default), validated."""
    if request.server and profile is None:
        raise UsageError("--server needs --profile (which API to read depends on the product)")
    if request.insecure and request.ca_cert:
        raise UsageError("use either --ca-cert or --insecure, not both")
    server_url = request.server or (profile.default_server_url if profile else None)
    if server_url:
        from ..collect.transports.http import display_url

        display_url(server_url)  # validates
    return server_url


def _token(
    request: DoctorRequest,
    profile: Profile | None,
    server_url: str | None,
    environ: Mapping[str, str],
    warn: Callable[[str], None],
) -> str | None:
    """The API token from the environment; a named but unset variable is a usage error."""
    token_env = request.token_env or (profile.token_env if profile else None)
    token = environ.get(token_env) if token_env else None
    if request.token_env and not token:
        raise UsageError(f"environment variable {request.token_env} (--token-env) is not set")
    if server_url and token_env and not token:
        warn(
            f"note: no API token ({token_env} is not set); requests go unauthenticated "
            "(use --token-env VAR if the server needs one)"
        )
    if request.insecure:
        warn(
            "warning: TLS certificate verification is disabled (--insecure); use it only for a "
            "bounded evaluation with a self-signed certificate. The manifest records it."
        )
    return token


def _targets(request: DoctorRequest, server_url: str | None) -> list[HostTarget]:
    """The hosts to collect (inventory, --ssh, --local); with no server either, nothing to do."""
    inventory = load_inventory(request.inventory) if request.inventory else None
    targets = build_targets(inventory, request.ssh, request.local)
    if not server_url and not targets:
        raise UsageError(
            "nothing to collect",
            hint="give --server (with --profile), --ssh, --inventory or --local",
        )
    return targets


def _check_limits(request: DoctorRequest) -> None:
    for name, value in (
        ("--concurrency", request.concurrency),
        ("--api-concurrency", request.api_concurrency),
        ("--log-lines", request.log_lines),
    ):
        if value < 1:
            raise UsageError(f"{name} must be at least 1")
    if request.log_bytes < 1024:
        raise UsageError("--log-bytes must be at least 1024")
    if request.timeout_s <= 0 or (request.deadline_s is not None and request.deadline_s <= 0):
        raise UsageError("--timeout and --deadline must be positive")


def _ssh(
    request: DoctorRequest, targets: list[HostTarget], home: Path
) -> tuple[dict[str, SshEndpoint], SshConnector | None]:
    """Resolve every remote host through ssh_config and read every known_hosts file now.

    Reading them before the first connection turns a missing or unreadable
    file into a usage error instead of a failed collector.
    """
    remote = [t for t in targets if not t.is_local]
    if not remote:
        return {}, None
    from ..collect.transports.hostkeys import KnownHostsBook
    from ..collect.transports.ssh import SshConnector
    from ..collect.transports.sshconfig import SshConfigResolver

    config = request.ssh_config or home / ".ssh" / "config"
    if request.ssh_config and not request.ssh_config.exists():
        raise UsageError(f"--ssh-config {request.ssh_config} does not exist")
    resolver = SshConfigResolver(config, home=home)
    endpoints = {t.alias: resolver.resolve(t.address) for t in remote}
    resolver.release()  # every host and jump host is resolved: the parsed file can go
    known_path = request.known_hosts or home / ".ssh" / "known_hosts"
    try:
        known = KnownHostsBook(
            [known_path],
            explicit=request.known_hosts is not None,
            accept_new=request.accept_new_host_keys,
        )
        for endpoint in endpoints.values():
            for hop in (*endpoint.jumps, endpoint):
                known.for_files(hop.known_hosts_files)
    except OSError as exc:
        raise UsageError(str(exc)) from exc
    return endpoints, SshConnector(resolver, known, use_agent=request.use_agent)


def load_profile(name: str | None) -> Profile | None:
    return get_profile(name) if name is not None else None
