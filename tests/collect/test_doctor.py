"""``bundler doctor`` end to end: flags, exit codes, summaries, JSON, interrupts, bundles."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from bundler import products
from bundler.cli import cli
from bundler.collect.inventory import load_inventory
from bundler.doctor.request import DoctorRequest
from bundler.doctor.run import run_doctor
from bundler.doctor.summary import exit_code
from bundler.errors import UsageError
from bundler.exit_codes import ExitCode
from bundler.products.base import NormalizeContext
from tests.support.http_server import Reply, ScriptedHTTPServer, TlsFiles
from tests.support.interrupts import ctrl_c_in
from tests.support.sshd import SshLab, free_port


@pytest.fixture
def sample_profile(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setitem(products.PROFILES, "testprod", "tests.collect.testprofile")
    return "testprod"


def _doctor(*args: str, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    result = CliRunner(env=env).invoke(cli, ["doctor", *args])
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.parametrize(
    ("verdict", "failed", "collected", "interrupted", "code"),
    [
        ("healthy", 0, 3, False, ExitCode.OK),
        ("degraded", 0, 3, False, ExitCode.OK),
        ("inconclusive", 0, 3, False, ExitCode.INCONCLUSIVE),
        ("inconclusive", 1, 3, False, ExitCode.PARTIAL),
        ("blocked", 1, 3, False, ExitCode.PROBLEM),
        (None, 1, 0, False, ExitCode.NOTHING_COLLECTED),
        ("blocked", 1, 0, True, ExitCode.INTERRUPTED),
        (None, 0, 2, False, ExitCode.OK),
    ],
)
def test_exit_code_precedence(
    verdict: str | None, failed: int, collected: int, interrupted: bool, code: ExitCode
) -> None:
    assert (
        exit_code(interrupted=interrupted, kept=collected, failed=failed, verdict=verdict) == code
    )


VERDICT_EXIT = {"healthy": 0, "degraded": 0, "inconclusive": 3, "blocked": 1}


def test_local_json_live_check() -> None:
    code, stdout, stderr = _doctor("--local", "--json")
    report = json.loads(stdout)
    # Always the analysis report; no profile, so no ladder (inconclusive, and it says why),
    # with the collection summary inside.
    assert report["schema"] == "bundler.analysis/1"
    assert report["verdict"] == "inconclusive"
    assert report["fleet_findings"][0]["code"] == "NO_LADDER"
    document = report["collection"]
    assert document["schema"] == "bundler.doctor-summary/1"
    assert code == 0, stderr
    assert document["collected"] == document["total"] == 1
    assert document["hosts"][0]["transport"] == "local"
    assert "ok          local.h01.sysinfo" in stderr
    assert "collected 1 of 1 collectors" in stderr


def test_profile_live_check_json_is_the_verdict(
    sample_profile: str, http_server: ScriptedHTTPServer
) -> None:
    """With a profile, ``--json`` prints the analyzer's live verdict, and it sets the exit."""
    http_server.route("/health", Reply(200, {"status": "healthy", "version": "2.0.0"}))
    http_server.route("/workers", Reply(200, []))
    outcome = run_doctor(
        DoctorRequest(profile=sample_profile, server=http_server.url, local=True), environ={}
    )
    document = json.loads(outcome.json_text())
    assert document["schema"] == "bundler.analysis/1"
    assert document["collection"]["schema"] == "bundler.doctor-summary/1"
    assert document["bundle"]["collectors_failed"] == []
    assert document["bundle"]["collectors_total"] >= 3  # sysinfo and the profile's two GETs
    assert outcome.exit_code == VERDICT_EXIT[document["verdict"]]


def test_an_unreachable_server_is_one_line_and_one_server_finding() -> None:
    """Nothing listens on the port: every HTTP collector fails alike; say it once."""
    url = f"http://127.0.0.1:{free_port()}"
    code, stdout, stderr = _doctor("--profile", "flux", "--server", url, "--json")
    assert code == ExitCode.NOTHING_COLLECTED, stderr
    failed_lines = [line for line in stderr.splitlines() if "] failed" in line]
    assert len(failed_lines) == 1, stderr
    assert "more collectors failed the same way" in stderr
    assert "http.* (" in stderr  # the summary table: one row for the group
    report = json.loads(stdout)
    assert report["schema"] == "bundler.analysis/1"
    assert report["verdict"] == "blocked"
    assert report["first_failed_layer"] == "server"
    (target,) = report["targets"]
    server = target["layers"][0]
    assert [f["code"] for f in server["findings"]] == ["FLUX_SERVER_UNREACHABLE"]  # one finding
    (group,) = report["collection"]["problem_groups"]
    assert group["count"] == len(report["collection"]["problems"]) > 1


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((), "nothing to collect"),
        (("--server", "http://127.0.0.1:1"), "--server needs --profile"),
        (("--local", "--since", "yesterday"), "invalid duration"),
        (("--local", "--concurrency", "0"), "--concurrency must be at least 1"),
        (("--local", "--log-bytes", "10"), "--log-bytes"),
        (("--local", "--generate-password"), "need --bundle"),
        (("--ssh", "bad host name"), "invalid SSH address"),
        (("--ssh", "h", "--ssh-config", "/nonexistent/cfg"), "does not exist"),
    ],
)
def test_usage_errors_are_one_line_exit_2(args: tuple[str, ...], message: str) -> None:
    code, stdout, stderr = _doctor(*args)
    assert code == 2
    assert message in stderr
    assert "Traceback" not in stderr
    assert stdout == ""


def test_a_bad_inventory_names_the_line(tmp_path: Path) -> None:
    inventory = tmp_path / "inv.yaml"
    inventory.write_text("hosts:\n  - address: a\n    rol: server\n")
    code, _, stderr = _doctor("--inventory", str(inventory))
    assert code == 2
    assert "hosts.0.rol" in stderr


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("hosts:\n  - address: a\n    role: [server\n", "line 4"),  # unclosed flow sequence
        ("hosts: !!python/object/apply:os.system ['true']\n", "line 1"),  # never constructed
    ],
)
def test_an_inventory_that_is_not_safe_yaml_is_refused_with_its_line(
    tmp_path: Path, text: str, line: str
) -> None:
    inventory = tmp_path / "inv.yaml"
    inventory.write_text(text)
    with pytest.raises(UsageError, match=f"is not valid YAML {line}$"):
        load_inventory(inventory)


def test_profile_options_are_checked(sample_profile: str, tmp_path: Path) -> None:
    with pytest.raises(Exception, match="TESTPROD_MISSING"):
        run_doctor(
            DoctorRequest(profile=sample_profile, token_env="TESTPROD_MISSING", local=True),
            environ={},
        )
    with pytest.raises(Exception, match="either --ca-cert or --insecure"):
        run_doctor(
            DoctorRequest(profile=sample_profile, insecure=True, ca_cert=tmp_path, local=True)
        )


def test_profile_run_normalizes_and_keeps_the_token_out(
    sample_profile: str, http_server: ScriptedHTTPServer
) -> None:
    token = "tok-7f3a9c1e5b"
    http_server.route("/health", Reply(200, {"status": "healthy", "version": "2.0.0"}))
    http_server.route("/workers", Reply(401, {"detail": f"bad token {token}"}))
    warnings: list[str] = []
    outcome = run_doctor(
        DoctorRequest(profile=sample_profile, server=http_server.url, token_env="T", local=True),
        environ={"T": token},
        warn=warnings.append,
    )
    assert http_server.requests[0].headers["Authorization"] == f"Bearer {token}"
    workers = next(o for o in outcome.result.outcomes if o.id == "http.workers")
    assert workers.status.value == "refused"
    assert token not in (workers.error_message or "")
    assert "bad token [" in (workers.error_message or "")  # replaced by a marker, not dropped
    assert token not in outcome.json_text()
    assert outcome.exit_code == ExitCode.PARTIAL
    assert outcome.summary.problems[0].id == "http.workers"


@pytest.mark.sshd
def test_ssh_trust_through_the_command_line(ssh_lab: SshLab) -> None:
    instance = ssh_lab.start("fresh")
    ssh_lab.add_host("fresh", instance)
    files = ("--ssh-config", str(ssh_lab.ssh_config), "--known-hosts", str(ssh_lab.known_hosts))
    code, _, stderr = _doctor("--ssh", "fresh", *files, "--json")
    assert code == ExitCode.NOTHING_COLLECTED, stderr
    assert "HostKeyUnknown" in stderr
    assert f"refused unknown host key ssh-ed25519 {instance.host_key.fingerprint}" in stderr
    assert "nothing could be collected" in stderr
    assert ssh_lab.known_hosts.read_text() == ""
    code, _, stderr = _doctor("--ssh", "fresh", *files, "--accept-new-host-keys")
    assert code == ExitCode.OK, stderr  # hosts only: no ladder verdict, collection complete
    assert f"trusted new host key {instance.host_key.fingerprint}" in stderr
    assert instance.known_hosts_line() in ssh_lab.known_hosts.read_text()
    outcome = run_doctor(
        DoctorRequest(
            ssh=("fresh",), ssh_config=ssh_lab.ssh_config, known_hosts=ssh_lab.known_hosts
        )
    )
    (host,) = outcome.summary.hosts
    assert host.host_key_fingerprint == instance.host_key.fingerprint
    assert not host.host_key_trusted_on_first_use  # known now: verified, not trusted anew


@pytest.mark.sshd
def test_some_failed_collectors_exit_5(ssh_lab: SshLab) -> None:
    ssh_lab.add_host("down", hostname="127.0.0.1", port=free_port())
    files = ("--ssh-config", str(ssh_lab.ssh_config), "--known-hosts", str(ssh_lab.known_hosts))
    code, _, stderr = _doctor("--local", "--ssh", "down", *files)
    assert code == ExitCode.PARTIAL
    assert "collected 1 of 3 collectors" in stderr
    problem = next(line for line in stderr.splitlines() if line.startswith("ssh.h01.connect "))
    assert "failed" in problem  # --ssh hosts come before --local
    assert "ConnectFailed" in problem
    outcome = run_doctor(
        DoctorRequest(
            local=True,
            ssh=("down",),
            ssh_config=ssh_lab.ssh_config,
            known_hosts=ssh_lab.known_hosts,
        )
    )
    assert [(p.id, p.error_class) for p in outcome.summary.problems] == [
        ("ssh.h01.connect", "ConnectFailed")
    ]


def test_ctrl_c_keeps_what_was_collected(
    sample_profile: str, http_server: ScriptedHTTPServer
) -> None:
    http_server.route("/health", Reply(200, {"status": "healthy", "version": "2.0.0"}))
    http_server.route("/workers", Reply(hang=True))
    with ctrl_c_in(0.5, once=lambda: "/workers" in http_server.paths()):
        outcome = run_doctor(DoctorRequest(profile=sample_profile, server=http_server.url))
    assert outcome.exit_code == ExitCode.INTERRUPTED
    statuses = {o.id: o.status.value for o in outcome.result.outcomes}
    assert statuses["http.health"] == "ok"
    assert statuses["http.workers"] == "interrupted"
    assert outcome.summary.interrupted


def test_local_bundle_is_sealed_and_leaves_nothing_else(tmp_path: Path) -> None:
    target = tmp_path / "support.zip"
    env = {"BUNDLE_PW": "correct horse battery staple"}
    code, _, stderr = _doctor(
        "--local", "--bundle", str(target), "--password-env", "BUNDLE_PW", env=env
    )
    assert code == ExitCode.OK, stderr
    assert list(tmp_path.iterdir()) == [target]  # no spool or temporary file left beside it


def test_local_bundle_end_to_end(tmp_path: Path) -> None:
    log = tmp_path / "app.log"
    log.write_text("2099-01-01 10:00:00 - app - INFO - password=hunter2-secret\n" * 3)
    inventory = tmp_path / "inv.yaml"
    inventory.write_text(
        f"hosts:\n  - address: local\n    role: server\n    logs: [{{file: {log}}}]\n"
    )
    target = tmp_path / "support.zip"
    env = {"BUNDLE_PW": "correct horse battery staple"}
    code, _, stderr = _doctor(
        "--inventory",
        str(inventory),
        "--bundle",
        str(target),
        "--password-env",
        "BUNDLE_PW",
        env=env,
    )
    assert code == ExitCode.OK, stderr  # no profile: no ladder verdict
    assert target.exists()
    assert b"hunter2-secret" not in target.read_bytes()
    inspected = CliRunner(env=env).invoke(
        cli, ["inspect", str(target), "--password-env", "BUNDLE_PW"]
    )
    assert inspected.exit_code == 0, inspected.stderr


def test_a_failing_normalizer_is_recorded_and_the_raw_evidence_kept(
    sample_profile: str, http_server: ScriptedHTTPServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.collect.testprofile import SampleProfile

    def broken(self: SampleProfile, ctx: object) -> list[object]:
        raise KeyError("bug in the profile")

    monkeypatch.setattr(SampleProfile, "normalize", broken)
    http_server.route("/health", Reply(200, {"status": "healthy", "version": "2.0.0"}))
    outcome = run_doctor(DoctorRequest(profile=sample_profile, server=http_server.url))
    failed = next(o for o in outcome.result.outcomes if o.id == "normalize.testprod")
    assert (failed.status.value, failed.error_class) == ("failed", "KeyError")
    assert outcome.exit_code == ExitCode.PARTIAL
    assert outcome.summary.collected >= 1


def test_normalized_evidence_is_added(
    sample_profile: str, http_server: ScriptedHTTPServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    from bundler.archive.contracts import MemorySink
    from bundler.doctor import run as doctor_module

    http_server.route("/health", Reply(200, {"status": "healthy", "version": "2.0.0"}))
    sinks: list[MemorySink] = []

    def keep_sink(transform: object) -> MemorySink:
        sinks.append(MemorySink())
        return sinks[-1]

    monkeypatch.setattr(doctor_module, "open_live", keep_sink)
    run_doctor(DoctorRequest(profile=sample_profile, server=http_server.url))
    (sink,) = sinks
    product = json.loads(sink.source().read_bytes("evidence/product.json"))  # type: ignore[attr-defined]
    assert product["server_version"] == "2.0.0"
    (entry,) = [e for e in sink.entries if e.path == "evidence/product.json"]
    assert entry.schema_name == "evidence.product"
    assert sink.aborted  # a live check keeps nothing


def test_a_normalizer_that_yields_a_non_document_stores_none_of_its_documents(
    sample_profile: str, http_server: ScriptedHTTPServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    from bundler.archive.contracts import MemorySink
    from bundler.doctor import run as doctor_module
    from tests.collect.testprofile import SampleProfile

    good = SampleProfile.normalize

    def half_broken(self: SampleProfile, ctx: NormalizeContext) -> Iterator[object]:
        yield from good(self, ctx)  # a valid evidence/product.json first ...
        yield {"not": "a document"}  # ... then a bug

    monkeypatch.setattr(SampleProfile, "normalize", half_broken)
    http_server.route("/health", Reply(200, {"status": "healthy", "version": "2.0.0"}))
    sinks: list[MemorySink] = []
    monkeypatch.setattr(
        doctor_module, "open_live", lambda _: sinks.append(MemorySink()) or sinks[-1]
    )
    outcome = run_doctor(DoctorRequest(profile=sample_profile, server=http_server.url))
    failed = next(o for o in outcome.result.outcomes if o.id == "normalize.testprod")
    assert (failed.status.value, failed.error_class) == ("failed", "TypeError")
    (sink,) = sinks
    assert not [e for e in sink.entries if e.path.startswith("evidence/")]  # all or nothing
    assert [e for e in sink.entries if e.path.startswith("raw/")]  # the raw evidence stays


def test_tls_trust_options(
    sample_profile: str, https_server: ScriptedHTTPServer, tls_files: TlsFiles
) -> None:
    https_server.route(
        "/health", Reply(200, {"status": "healthy", "version": "2.0.0"}, delay_s=0.5)
    )

    def health(**options: object) -> tuple[str, str | None, list[str], bool]:
        warnings: list[str] = []
        request = DoctorRequest(profile=sample_profile, server=https_server.url, **options)  # type: ignore[arg-type]
        outcome = run_doctor(request, warn=warnings.append)
        found = next(o for o in outcome.result.outcomes if o.id == "http.health")
        return found.status.value, found.error_class, warnings, outcome.summary.insecure_tls

    status, error, warnings, insecure = health()
    assert (status, error, insecure) == ("refused", "TLSVerifyFailed", False)
    assert any("TESTPROD_TOKEN is not set" in w for w in warnings)
    assert health(ca_cert=tls_files.ca_cert)[:2] == ("ok", None)  # slow (0.5 s) but in time
    status, error, warnings, insecure = health(insecure=True)
    assert (status, insecure) == ("ok", True)
    assert any("--insecure" in w for w in warnings)


@pytest.mark.sshd
def test_known_hosts_named_by_ssh_config_are_used(ssh_lab: SshLab, tmp_path: Path) -> None:
    """The lab's ssh_config says `UserKnownHostsFile <lab>/known_hosts` for every host."""
    home = tmp_path / "home"  # its ~/.ssh/known_hosts does not exist
    trusted, fresh = ssh_lab.start("trusted"), ssh_lab.start("fresh")
    ssh_lab.add_host("trusted", trusted)
    ssh_lab.add_host("fresh", fresh)
    ssh_lab.trust(trusted)
    outcome = run_doctor(
        DoctorRequest(
            ssh=("trusted", "fresh"), ssh_config=ssh_lab.ssh_config, accept_new_host_keys=True
        ),
        home=home,
    )
    hosts = {h.alias: h for h in outcome.summary.hosts}
    assert hosts["h01"].host_key_fingerprint == trusted.host_key.fingerprint
    assert not hosts["h01"].host_key_trusted_on_first_use
    assert hosts["h02"].host_key_trusted_on_first_use
    assert fresh.known_hosts_line() in ssh_lab.known_hosts.read_text()
    assert not (home / ".ssh" / "known_hosts").exists()


def test_json_escapes_what_the_server_sent_that_a_terminal_would_act_on(
    sample_profile: str, http_server: ScriptedHTTPServer
) -> None:
    """Bidi overrides, C1 controls and zero-width characters a server puts in its answers
    reach the customer's terminal through ``--json``: written as JSON escapes, as the bundle
    readers' JSON is, and read back exactly."""
    hostile = "w\u202e1\x9b2J\u200b"
    http_server.route("/health", Reply(200, {"status": "healthy", "version": hostile}))
    http_server.route("/workers", Reply(500, f"no workers: {hostile}", content_type="text/plain"))
    outcome = run_doctor(
        DoctorRequest(profile=sample_profile, server=http_server.url, local=True), environ={}
    )
    text = outcome.json_text()
    assert not any(ch in text for ch in "\u202e\x9b\u200b"), text
    assert hostile in json.dumps(json.loads(text), ensure_ascii=False)
