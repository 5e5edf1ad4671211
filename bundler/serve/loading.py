"""From an opened bundle to a ready :class:`~.replay.Replay`: every body read and verified once.

Bodies are read into memory up front: each is verified as it streams (sha256,
AES MAC), the zip handle is never shared between request threads, and the
bundle can be closed before the first request. A member that fails
verification is never served (its route answers ``unsound``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from schemas import CollectorKind, Manifest

from ..analyze.opening import OpenedBundle, profile_for
from ..archive.names import printable_name
from ..errors import NotABundle
from ..products.base import Profile
from ..source import MemberNotFound, MemberUnverified
from .captured import CapturedRoute, captured_routes
from .replay import Replay, route_problem


@dataclass
class LoadedReplay:
    replay: Replay
    routes: list[CapturedRoute]
    manifest: Manifest
    profile: Profile | None
    problems: list[str] = field(default_factory=list)

    @property
    def reconstructed(self) -> bool:
        """True when the bundle predates recorded requests (routes rebuilt from the plan)."""
        return any(not r.exact for r in self.routes)


def load_replay(opened: OpenedBundle, label: str) -> LoadedReplay:
    """Raises :class:`NotABundle` when there is no manifest or no captured API state."""
    manifest = opened.manifest
    if manifest is None:
        raise NotABundle(
            f"{label} has no readable manifest, so its captured requests are unknown",
            hint="`bundler verify` says what is wrong with it",
        )
    profile = profile_for(manifest, opened.evidence())
    routes = captured_routes(manifest, opened.source, profile)
    asked = [c for c in manifest.collectors if c.kind is CollectorKind.HTTP and c.attempts > 0]
    if asked and not routes:
        raise NotABundle(
            f"{label} predates recorded requests and was collected with profile "
            f"{manifest.profile!r}, which this bundler cannot rebuild them from",
            hint="`bundler analyze` still reads it",
        )
    if not any(r.member is not None or r.status is not None for r in routes):
        raise NotABundle(
            f"{label} holds no captured control-plane API state (a hosts-only bundle: "
            "doctor ran without --server, or every request failed)",
            hint="`bundler inspect` lists its collectors; `bundler analyze` still reads it",
        )
    bodies: dict[str, bytes] = {}
    unsound: dict[str, str] = {}
    problems = list(opened.problems)
    for route in routes:
        if route.member is None or route.member in bodies or route.member in unsound:
            continue
        if route.body_problem is not None:  # never served: not even read
            continue
        try:
            bodies[route.member] = opened.source.read_bytes(route.member)
        except MemberUnverified as exc:  # there, but failed a check: say which
            unsound[route.member] = exc.reason
            problems.append(f"{route.member}: not served ({unsound[route.member]})")
        except MemberNotFound:
            unsound[route.member] = "missing from the bundle"
            problems.append(f"{route.member}: not served ({unsound[route.member]})")
    for route in routes:
        if (reason := route_problem(route)) is not None:
            problems.append(f"{printable_name(route.shown)}: not served ({reason})")
    refused = tuple(profile.mutating_routes) if profile is not None else ()
    replay = Replay(routes, bodies, refused, unsound)
    return LoadedReplay(replay, routes, manifest, profile, problems)
