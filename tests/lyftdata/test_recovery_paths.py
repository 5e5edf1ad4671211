"""The recovery paths a LyftData finding renders say what the guide says, in its order.

LyftData's *Worker Recovery and Serviceability* guide ("Common recovery paths", "Upgrade
or replace a worker", "Remove a worker safely", "Recovery acceptance") names the
commands, variables and steps of each path. Each test reads the text the engine
attaches to a finding (``recovery_for`` with the LyftData profile's own paths, as
``analyze`` does) and checks the guide's words appear, in the guide's order, and that
nothing the guide does not ask is asked. The audit is in docs/lyftdata-contract.md
("Fidelity to the guide").
"""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest
from click.testing import CliRunner

from bundler.analyze.recovery import recovery_for
from bundler.cli import cli
from bundler.products.lyftdata import PROFILE
from samples import catalog
from schemas import Recovery
from tests.support.lyftdata_sim import running_simulator


def _path(code: str) -> Recovery:
    recovery = recovery_for(code, PROFILE.recovery_paths)
    assert recovery is not None, code
    return recovery


def _next_steps(sample: str, verdict_code: int = 1) -> list[str]:
    """The "Next steps" lines ``bundler analyze --format markdown`` prints for a sample."""
    bundle = catalog.BUNDLES_DIR / f"{sample}.zip"
    result = CliRunner().invoke(
        cli,
        ["analyze", str(bundle), *catalog.open_args("password"), "--format", "markdown"],
        env={catalog.PASSWORD_ENV: catalog.SAMPLE_PASSWORD},
    )
    assert result.exit_code == verdict_code, result.output
    section = result.stdout.split("**Next steps**", 1)[1].split("**Recovery acceptance**", 1)[0]
    return [line.strip() for line in section.splitlines() if line.strip()]


def _block(lines: list[str], code: str) -> list[str]:
    """One finding's lines of the "Next steps" section: its summary, steps and cautions."""
    start = next(i for i, line in enumerate(lines) if line.startswith(f"- `{code}`"))
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("- `")), len(lines))
    return lines[start:end]


def _in_order(texts: list[str], needles: list[str]) -> list[int]:
    """Where each needle first appears in ``texts`` (each in a later or the same item)."""
    found, start = [], 0
    for needle in needles:
        at = next((i for i in range(start, len(texts)) if needle in texts[i]), None)
        assert at is not None, f"{needle!r} missing or out of order in {texts}"
        found.append(at)
        start = at
    return found


def test_commands_in_a_ticket_read_as_typed() -> None:
    """A Markdown code span shows a backslash as itself: the heartbeat path's commands once
    read `lyftdata workers logs \\<worker-id\\> --limit 200` in a pasted ticket."""
    steps = "\n".join(_block(_next_steps("lyftdata-fleet_mixed"), "WORKER_OFFLINE"))
    assert "`lyftdata workers logs <worker-id> --limit 200`" in steps
    assert "`lyftdata workers status <worker-id>`" in steps
    assert "\\<" not in steps


@pytest.mark.parametrize(
    ("sample", "code", "verdict_code"),
    [
        ("lyftdata-canary_stale", "CANARY_PREDATES_DEPLOYMENT", 0),
        ("lyftdata-outcome_no_receipt", "RECEIPT_MISSING", 1),
    ],
)
def test_a_canary_that_succeeded_is_not_sent_to_read_a_failed_runs_error(
    sample: str, code: str, verdict_code: int
) -> None:
    """The outcome path began "Read the failed run's error" for every outcome finding, also
    for a canary that succeeded but predates the deployment or lacks its receipt."""
    steps = _block(_next_steps(sample, verdict_code), code)
    assert not any(line.startswith("1. Read the failed run") for line in steps), steps
    assert "1. If the run failed, read its error and fix its cause." in steps


def test_a_recovery_step_names_no_internal_path_id() -> None:
    """The lease path's step ended "(the trust-root path)": a recovery path's id, which no
    operator sees anywhere else."""
    steps = _block(_next_steps("lyftdata-clock_skew"), "AUTHORIZATION_DENIED")
    assert any("trust-health and trust-reset operations" in line for line in steps), steps
    assert not any(" path)" in line for line in steps), steps


def test_lease_offers_trust_operations_only_for_a_trust_root_blocker() -> None:
    """The guide names trust-health and trust-reset only "if runtime requirements report a
    worker-auth trust-root problem"; the lease path offered them for an invalid signature."""
    lease = _path("LEASE_SIGNATURE_INVALID")
    [trust] = [step for step in lease.steps if "trust-health" in step]
    assert trust.startswith("If the runtime-requirements report names a worker-auth trust-root")
    assert "trust-reset" in trust
    assert "signature" not in trust
    assert any("auth-cache or settings databases" in c for c in lease.cautions)


def test_connectivity_names_lyftdata_url_and_the_guides_checks_in_order() -> None:
    """``bundler analyze`` on a real simulator bundle (the server's certificate untrusted):
    the guide's "Confirm LYFTDATA_URL, DNS, TCP reachability, certificate trust, proxy
    behavior, and clock synchronization from the worker host", in that order; the path
    said "the server URL", not the variable the guide names."""
    lines = _next_steps("lyftdata-tls_untrusted")
    assert lines[0].startswith("- `TLS_NOT_TRUSTED`")
    at = _in_order(
        lines,
        ["LYFTDATA_URL", "DNS", "TCP reachability", "certificate trust", "proxy", "clock"],
    )
    assert at == sorted(set(at)), "one check per step, in the guide's order"
    assert "from the worker host" in lines[at[0]].lower()
    assert any("insecure TLS only for a bounded evaluation with a self-signed" in x for x in lines)


def _closed_port() -> int:
    """A port on 127.0.0.1 nothing listens on: a connection to it is refused."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_an_unreachable_server_is_checked_from_the_collecting_machine() -> None:
    """``bundler doctor --json`` against a port nothing listens on: doctor's own connection
    failed, so the path asks the guide's server question and its checks (DNS, TCP
    reachability, certificate trust, proxy behavior) of the machine that ran doctor. It was
    the worker-host connectivity path, which sent the engineer to the worker hosts."""
    url = f"https://127.0.0.1:{_closed_port()}"
    result = CliRunner().invoke(
        cli,
        ["doctor", "--profile", "lyftdata", "--server", url, "--json"],
        env={PROFILE.token_env: "not-a-real-token"},
    )
    assert result.exit_code == 4, result.output
    [server] = json.loads(result.stdout)["targets"][0]["layers"][:1]
    [finding] = [f for f in server["findings"] if f["code"] == "SERVER_UNREACHABLE"]
    recovery = Recovery.model_validate(finding["recovery"])
    assert "machine that ran doctor" in recovery.summary
    at = _in_order(
        recovery.steps,
        ["LYFTDATA_URL", "DNS", "TCP reachability", "certificate trust", "proxy behavior",
         "Is the control plane reachable and healthy?", "collect again"],
    )  # fmt: skip
    assert at == sorted(set(at)), "one check per step, in the guide's order"
    assert not any("from the worker host" in step for step in recovery.steps)
    assert not any("clock" in step for step in recovery.steps)
    assert "`lyftdata doctor --json`" in recovery.steps[5]
    assert "not a worker's" in recovery.cautions[0]
    assert (recovery.reference or "").startswith(
        "LyftData's Worker Recovery and Serviceability guide: The serviceability ladder (Server"
    )


def test_insecure_collection_is_checked_where_doctor_ran_not_from_a_worker_host(
    tmp_path: Path,
) -> None:
    """``bundler doctor --json --insecure`` against the simulator (HTTPS, its own CA): it was
    doctor's connection that checked no certificate, yet TLS_INSECURE_IN_USE got the worker
    host's Connectivity or TLS path. It now gets the server-tls path: the guide's certificate
    trust, on the machine that ran doctor first (``--ca-cert``, collect again without
    ``--insecure``), then the worker hosts, with the guide's "Use insecure TLS only for bounded
    evaluation with a self-signed certificate" as its caution."""
    with running_simulator("healthy", tmp_path, hosts=False) as sim:
        result = CliRunner().invoke(
            cli,
            ["doctor", "--profile", "lyftdata", "--server", sim.url, "--insecure", "--json"],
            env={PROFILE.token_env: sim.token},
        )
    report = json.loads(result.stdout)
    [server] = report["targets"][0]["layers"][:1]
    [finding] = [f for f in server["findings"] if f["code"] == "TLS_INSECURE_IN_USE"]
    recovery = Recovery.model_validate(finding["recovery"])
    assert "machine that ran doctor" in recovery.summary
    assert recovery.steps[0].startswith("On the machine that ran `bundler doctor`")
    assert "`--ca-cert FILE`" in recovery.steps[0]
    assert "without `--insecure`" in recovery.steps[0]
    worker = [i for i, step in enumerate(recovery.steps) if "from the worker host" in step.lower()]
    assert worker
    assert min(worker) > 1, "the worker hosts come after doctor's machine"
    assert any("insecure TLS only for a bounded evaluation" in c for c in recovery.cautions)
    assert (recovery.reference or "").endswith("guide: Connectivity or TLS")


def test_the_generic_server_reachability_path_names_the_collector_not_a_product() -> None:
    """Without a product's text (a product that words no path), SERVER_UNREACHABLE reads
    the product-neutral server-reachability path, not the worker host's connectivity."""
    generic = recovery_for("SERVER_UNREACHABLE")
    assert generic is not None
    assert "machine that ran doctor" in generic.summary
    assert generic.steps[0].startswith("On the machine that ran `bundler doctor`")
    assert (generic.reference or "").endswith(
        "server reachability (the collector's own connection)"
    )


def test_state_repair_asks_to_record_the_identity_only_before_a_full_reset() -> None:
    """``bundler analyze`` on a real simulator bundle (corrupt SQLite state, the worker
    crash-looping): the guide's Corrupt local state is stop, repair once (or the narrower
    auth), run normally; recording "the worker identity, local state path, deployed jobs,
    and recovery plan" is asked before ``--reset-state full`` only. The path made it the
    first step of every repair and left the recovery plan out."""
    block = _block(_next_steps("lyftdata-corrupt_state_crashloop"), "LOCAL_STATE_CORRUPT")
    steps = [line for line in block if line[:1].isdigit()]
    cautions = [line for line in block if line.startswith("- *Caution:*")]
    assert _in_order(
        steps,
        ["Stop the worker service", "--reset-state repair", "--reset-state auth", "normally"],
    ) == [0, 1, 2, 3]
    assert not any("record" in step.lower() for step in steps)
    [full] = [c for c in cautions if "--reset-state full" in c]
    assert _in_order(
        [full],
        ["last resort", "worker identity", "local state path", "deployed jobs", "recovery plan"],
    )
    assert "--yes only in deliberately reviewed, non-interactive automation" in cautions[0]


def test_remove_keeps_runtime_artifacts_and_ends_with_lyftdata_workers_remove() -> None:
    """The guide's Remove a worker safely: six checks before, "preserve required logs,
    traces, runtime artifacts, and receipts" among them, then ``lyftdata workers remove
    <worker-id>``; the path left out runtime artifacts and the command."""
    remove = _path("WORKER_OFFLINE_IDLE")
    assert _in_order(
        remove.steps,
        [
            "Stop new work at the source or scheduler",
            "in-flight and checkpointed work",
            "job deployments",
            "logs, traces, runtime artifacts and receipts",
            "service is stopped",
            "replacement is serviceable",
            "`lyftdata workers remove <worker-id>`",
        ],
    ) == list(range(7))
    assert remove.steps[-1].startswith("Then remove the worker through the UI or the CLI")
    assert "nor prove that a replacement has assumed it" in remove.cautions[0]


def test_acceptance_leaves_the_canarys_bound_to_the_operator() -> None:
    """The guide's acceptance asks for a "successful bounded canary". A bundle shows that a
    canary succeeded, never the bound the operator gave it: ``bundler analyze`` on a real
    simulator bundle (a healthy fleet) ticked "successful bounded canary", as though the
    bound had been checked. The check now says whose it is to confirm."""
    bundle = catalog.BUNDLES_DIR / "lyftdata-healthy.zip"
    result = CliRunner().invoke(
        cli,
        ["analyze", str(bundle), *catalog.open_args("password"), "--format", "json"],
        env={catalog.PASSWORD_ENV: catalog.SAMPLE_PASSWORD},
    )
    assert result.exit_code == 0, result.output
    [target] = json.loads(result.stdout)["targets"]
    checks = {c["check"]: c["status"] for c in target["acceptance"]}
    [canary] = [check for check in checks if "canary" in check]
    assert checks[canary] == "pass"
    assert canary.startswith("successful canary")
    assert "bounded is the operator's to confirm" in canary


def test_license_restores_and_waits_for_the_lease_refresh_and_nothing_else() -> None:
    """The guide: "restore a valid license and wait for the next lease-refresh cycle. A
    normal license recovery does not require a worker restart." The path also asked to
    confirm the edition and runtime authorization (the acceptance checks' job)."""
    for code in ("LICENSE_EXPIRED_OR_INVALID", "COMMUNITY_EDITION_NO_EXTERNAL_WORKERS"):
        license_path = _path(code)
        assert _in_order(license_path.steps, ["valid license", "next lease-refresh cycle"]) == [
            0,
            1,
        ]
        assert len(license_path.steps) == 2
        assert "external worker needs a licensed deployment" in license_path.summary
        assert any("does not need a worker restart" in c for c in license_path.cautions)


def test_prerequisites_repair_the_one_named_blocker_then_rerun_readiness() -> None:
    """The guide: inspect the exact report, "repair the named blocker": one of five repairs
    (an "or"), then rerun readiness. The path listed the five as five steps to do."""
    steps = _path("REQUIREMENT_NOT_SATISFIED").steps
    assert steps[0].startswith("Inspect the exact runtime-requirements report")
    assert _in_order(
        [steps[1]],
        [
            "bind the required credential to the job",
            "add the worker to the credential's allowed workers",
            "update worker database settings or the exact job ACL",
            "stage and deploy the required job",
            "or repair the source or Provider Pack setup journey",
        ],
    )
    assert steps[2].startswith("Rerun readiness after the repair")
    assert len(steps) == 3


def test_replace_keeps_the_guides_nine_steps_in_order() -> None:
    """The guide's Upgrade or replace a worker has nine numbered steps; the path merged
    them into seven (reapplying placement inside step 6, receipts inside step 7, "downstream"
    dropped) and left out whose design the topology is."""
    replace = _path("WORKER_REMOVED")
    assert _in_order(
        replace.steps,
        [
            "Record the worker identity, labels, settings, assigned jobs and current evidence",
            "Pause upstream schedules or remove the affected job deployments",
            "back up only the state",
            "Install a worker version the server supports",
            "Restore or re-enroll the intended identity through product-supported paths",
            "Confirm heartbeat and runtime authorization",
            "Reapply or reconcile job placement",
            "Rerun runtime requirements and a bounded canary",
            "Confirm downstream receipts before restoring normal schedules",
        ],
    ) == list(range(9))
    assert "same active identity and local state" in replace.cautions[0]
    assert any("belongs to the deployment operator" in c for c in replace.cautions)


def test_a_resource_shortage_is_warned_of_resources_not_only_capabilities() -> None:
    """The capacity path serves a missing capability and a short resource alike: its caution
    once spoke of capabilities alone, under a finding of 8 CPUs asked of 2."""
    lines = _block(_next_steps("lyftdata-capacity_short_running"), "RESOURCES_INSUFFICIENT")
    caution = next(line for line in lines if "restart" in line.lower())
    assert "resources" in caution
