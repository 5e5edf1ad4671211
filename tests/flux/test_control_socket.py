"""A worker without its control socket for want of an inode: said only when both are proven.

The real lab (``test_host_faults``) starts a worker on a volume with no inode left; here the
cases where the bundle cannot tie the two together, on hand-made evidence: the socket came
up at a later start, it failed for another reason, the volume has inodes (or was read twice,
once with some), or was not read.
"""

from __future__ import annotations

import pytest

from bundler.analyze.api import RuleResult
from bundler.products.flux.rules.control_socket import flux_socket_without_inodes
from schemas.evidence import Source, StateVolume
from tests.support.flux_evidence import MIB, FluxCase, LocalStateEvidence, line, online

WORKER_LOG = "hosts/h02/logs/0.log"  # FluxCase's member for the first worker log
UNAVAILABLE = "Worker control socket unavailable ({}); pause/resume via signals only"
NO_SPACE = "[Errno 28] No space left on device"
LISTENING = "Worker control socket listening at .flux/worker-w2.sock"


def volume(inodes_free: int, alias: str = "h-w2") -> StateVolume:
    """``df -P -k`` and ``df -P -i`` of w2's state directory: 64 inodes, blocks free."""
    return StateVolume(
        worker="w2",
        host_alias=alias,
        mount="/srv/flux/w2",
        total_bytes=4 * MIB,
        used_bytes=0,
        free_bytes=4 * MIB,
        inodes_total=64,
        inodes_free=inodes_free,
        source=Source(method="ssh", member=f"hosts/{alias}/state-volume.txt", line_start=2),
        inodes_source=Source(method="ssh", member=f"hosts/{alias}/state-inodes.txt", line_start=2),
    )


def judged(log: list[tuple[str, str]], volumes: list[StateVolume]) -> RuleResult | None:
    case = FluxCase(
        workers=[online("w2")],
        documents=[LocalStateEvidence(volumes=volumes)],
        worker_logs={"w2": [line(stamp, "flux.worker", text) for stamp, text in log]},
    )
    return case.run(flux_socket_without_inodes, worker="w2")


STARTED_WITHOUT = [
    ("17:00:00", "Worker starting up..."),
    ("17:00:00", UNAVAILABLE.format(NO_SPACE)),
]


def test_the_missing_socket_is_tied_to_the_exhausted_inodes_citing_both() -> None:
    result = judged(STARTED_WITHOUT, [volume(0)])
    assert result is not None
    (finding,) = result.findings
    assert (finding.code, finding.severity) == ("FLUX_CONTROL_SOCKET_NO_INODES", "warn")
    assert "w2 runs without its control socket" in finding.message
    assert f"Worker control socket unavailable ({NO_SPACE})" in finding.message
    assert "0 of 64 inodes free" in finding.message
    cited = [(c.member, c.pointer, c.lines.start if c.lines else None) for c in finding.evidence]
    assert cited == [
        (WORKER_LOG, None, 2),
        ("evidence/local_state.json", "/volumes/0/inodes_free", None),
        ("hosts/h-w2/state-inodes.txt", None, 2),
    ]
    assert finding.recovery is not None
    assert "then restart w2" in finding.recovery.summary


@pytest.mark.parametrize(
    ("log", "volumes"),
    [
        (STARTED_WITHOUT, [volume(12)]),  # inodes free when collected: the link is unproven
        (STARTED_WITHOUT, [volume(0), volume(12, alias="b")]),  # read twice, once with some
        (STARTED_WITHOUT, []),  # the volume was not read
        ([("17:00:00", UNAVAILABLE.format("[Errno 13] Permission denied"))], [volume(0)]),
        ([*STARTED_WITHOUT, ("17:05:00", "Worker starting up..."), ("17:05:00", LISTENING)],
         [volume(0)]),  # a later start made its socket
        ([("17:00:00", LISTENING)], [volume(0)]),  # it has its socket; the volume is capacity's
    ],
    ids=["inodes-free", "read-twice", "volume-unread", "other-error", "restarted", "listening"],
)  # fmt: skip
def test_no_finding_when_the_bundle_cannot_prove_the_link(
    log: list[tuple[str, str]], volumes: list[StateVolume]
) -> None:
    assert judged(log, volumes) is None
