"""Doctor past the readers' limits keeps the bundle, and says what it left out.

bundler's readers refuse a bundle with more members than ``ReaderLimits.max_members``
or a manifest over ``max_manifest_bytes``, and the post-write check refused to publish
one: a fleet big enough lost its whole bundle after the whole collection. Doctor now
stops storing collected members before either limit (:mod:`bundler.archive.room`), each
collector left out failed as ``BundleFull`` with the limit named. Here the real doctor
collects the LyftData simulator (a real HTTPS server) with the limits made small (what
``DoctorRequest.bundle_limits`` is for; the defaults are 100,000 members and 64 MiB), and
the real commands read the bundle with the same limits: it opens, it names the gaps,
and ``analyze`` calls the verdict inconclusive, not healthy.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from bundler.archive.limits import ReaderLimits
from bundler.archive.room import OWN_MEMBERS
from bundler.collect.defaults import DEFAULT_API_CONCURRENCY
from bundler.doctor.request import DoctorRequest
from bundler.doctor.run import DoctorOutcome, run_doctor
from bundler.doctor.sinks import AFTER_COLLECTION
from bundler.exit_codes import ExitCode
from bundler.products.lyftdata.plan import http_steps
from bundler.secret_options import SealOptions
from schemas import CollectorStatus
from tests.support.lyftdata_fleet import run_bundler
from tests.support.lyftdata_sim import running_simulator

PASSWORD = "lyftdata full bundle password"
ENV = {"LYFTDATA_API_TOKEN": "sim-token", "BUNDLE_PW": PASSWORD}


def _doctor(
    tmp_path: Path, limits: ReaderLimits, *, api_concurrency: int = DEFAULT_API_CONCURRENCY
) -> tuple[DoctorOutcome, Path, list[str]]:
    """Doctor's outcome, the bundle, and every path the simulator was asked for."""
    bundle = tmp_path / "support.zip"
    with (
        running_simulator("healthy", tmp_path, hosts=False) as sim,
        pytest.MonkeyPatch.context() as patch,
    ):
        for name, value in ENV.items():
            patch.setenv(name, value)
        request = DoctorRequest(
            profile="lyftdata",
            server=sim.url,
            ca_cert=sim.ca_file,
            bundle=bundle,
            seal=SealOptions(password_env="BUNDLE_PW"),
            bundle_limits=limits,
            api_concurrency=api_concurrency,
        )
        outcome = run_doctor(request, environ=os.environ)
        asked = [r["path"] for r in sim.requests()]
    return outcome, bundle, asked


def _read_back(bundle: Path, env: dict[str, str]) -> dict[str, Any]:
    """Every reading command, with ``env``'s limits: each opens the bundle; the manifest
    as ``inspect --json`` shows it."""
    unlock = ("--password-env", "BUNDLE_PW")
    for command in ("verify", "review"):
        ran = run_bundler(command, str(bundle), *unlock, env=ENV | env)
        assert ran.returncode == 0, (command, ran.stderr[-2000:])
    inspected = run_bundler("inspect", str(bundle), *unlock, "--json", env=ENV | env)
    assert inspected.returncode == 0, inspected.stderr[-2000:]
    return dict(json.loads(inspected.stdout))


def _left_out(outcome: DoctorOutcome) -> list[str]:
    return [o.id for o in outcome.result.outcomes if o.error_class == "BundleFull"]


def test_a_run_past_the_member_cap_publishes_a_bundle_that_names_what_it_left_out(
    tmp_path: Path,
) -> None:
    cap = 20  # the simulator's healthy run stores 30 members
    outcome, bundle, _ = _doctor(tmp_path, ReaderLimits(max_members=cap))
    assert bundle.exists()
    assert outcome.exit_code is ExitCode.PARTIAL  # some collectors failed, all recorded
    left_out = _left_out(outcome)
    assert left_out
    for record in outcome.result.outcomes:
        if record.id in left_out:
            assert record.status is CollectorStatus.FAILED
            assert record.members == ()
            assert record.error_message is not None
            assert f"as many as bundler's readers open ({cap})" in record.error_message

    env = {"BUNDLER_MAX_MEMBERS": str(cap)}
    shown = json.dumps(_read_back(bundle, env))
    assert "BundleFull" in shown
    analyzed = run_bundler(
        "analyze", str(bundle), "--password-env", "BUNDLE_PW", "--format", "json", env=ENV | env
    )
    assert analyzed.returncode == ExitCode.INCONCLUSIVE, analyzed.stderr[-2000:]
    report = json.loads(analyzed.stdout)
    assert report["verdict"] == "inconclusive"
    said = json.dumps(report)
    assert any(collector in said for collector in left_out)  # the gap cites what is missing


def test_a_run_past_the_manifest_cap_publishes_a_bundle_its_readers_read(
    tmp_path: Path,
) -> None:
    cap = 20 << 10  # the healthy run's manifest is about 22 KiB
    outcome, bundle, _ = _doctor(tmp_path, ReaderLimits(max_manifest_bytes=cap))
    assert bundle.exists()
    assert outcome.exit_code is ExitCode.PARTIAL
    left_out = _left_out(outcome)
    assert left_out
    for record in outcome.result.outcomes:
        if record.id in left_out:
            assert record.error_message is not None
            assert "the manifest would pass the 20.0 KiB bundler's readers read" in (
                record.error_message
            )
    inspected = _read_back(bundle, {"BUNDLER_MAX_MANIFEST_BYTES": str(cap)})
    assert "BundleFull" in json.dumps(inspected)


def test_a_fan_out_whose_parent_was_left_out_is_skipped_not_run_blind(tmp_path: Path) -> None:
    """Room for one collected member, and one request at a time in plan order: the health
    check takes it, and ``GET /api/workers`` (like every later GET) is answered but left
    out. A per-worker GET would expand a list the bundle does not hold, and cost the
    server a request per worker for members left out as well. Each fan-out is skipped,
    saying which parent was left out, and the server is never asked for it."""
    one_member = ReaderLimits(max_members=OWN_MEMBERS + AFTER_COLLECTION + 1)
    outcome, bundle, asked = _doctor(tmp_path, one_member, api_concurrency=1)
    assert bundle.exists()
    by_id = {o.id: o for o in outcome.result.outcomes}
    assert by_id["http.health"].status is CollectorStatus.OK
    assert by_id["http.workers"].error_class == "BundleFull"
    fan_outs = {s.id: s.for_each.step for s in http_steps() if s.for_each is not None}
    plain = {s.path for s in http_steps() if s.for_each is None}
    assert set(asked) <= plain, sorted(set(asked) - plain)
    settled = {o.step: o for o in outcome.result.outcomes if o.step in fan_outs}
    assert set(settled) == set(fan_outs)
    for step, record in settled.items():
        assert record.status is CollectorStatus.SKIPPED, (step, record)
        assert record.note == f"not run: {fan_outs[step]} was left out of the bundle (BundleFull)"
