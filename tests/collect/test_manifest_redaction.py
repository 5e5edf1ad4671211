"""What the server says reaches the manifest only redacted: bound values, headers, messages.

Doctor runs for real against a scripted HTTP server on 127.0.0.1 and seals a bundle; the
tests read the manifest back out of it. The manifest is not a member the redactor walks:
every string in it that came from the remote side must have passed through the redactor
on the way in (``bundler.archive.manifest_draft.redact_outcome``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path

import pytest

from bundler import products
from bundler.collect.recorder import header_text
from bundler.doctor.request import DoctorRequest
from bundler.doctor.run import run_doctor
from bundler.products.base import NormalizeContext
from bundler.secret_options import SealOptions
from schemas import CollectorKind
from schemas.evidence import EvidenceDoc, ProductInfo
from tests.collect import testprofile
from tests.support.archive import open_test_bundle
from tests.support.http_server import Reply, ScriptedHTTPServer, TlsFiles
from tests.support.sshd import SshLab

TOKEN = "tok-PLANTED-9f8e7d6c5b4a39281706"
PASSWORD = "Hunter2Hunter2!"
KEYWORD = "falcon-keyword-7731-project"
BUNDLE_PASSWORD = "correct-horse-battery-staple-42"


@pytest.fixture
def sample_profile(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setitem(products.PROFILES, "testprod", "tests.collect.testprofile")
    monkeypatch.setenv("BPW", BUNDLE_PASSWORD)  # the bundle's password is read from os.environ
    return "testprod"


def _run(
    profile: str, served: ScriptedHTTPServer, bundle: Path, **request: object
) -> tuple[dict[str, object], bytes, dict[str, bytes]]:
    """Doctor into ``bundle`` (the server ``served``, unless ``request`` names another URL);
    the manifest (parsed and as bytes) and every other member."""
    fields: dict[str, object] = {
        "profile": profile,
        "server": served.url,
        "token_env": "T",
        "bundle": bundle,
        "seal": SealOptions(password_env="BPW"),
        **request,
    }
    run_doctor(
        DoctorRequest(**fields),  # type: ignore[arg-type]
        environ={"T": TOKEN, "BPW": BUNDLE_PASSWORD},
    )
    reader = open_test_bundle(bundle, BUNDLE_PASSWORD)
    try:
        members = {name: reader.read_bytes(name) for name in reader.names()}
    finally:
        reader.close()
    raw = members.pop("manifest.json")
    return json.loads(raw), raw, members


def _workers(*names: str) -> Reply:
    return Reply(200, [{"name": name, "status": "online"} for name in names])


def test_bound_worker_ids_are_redacted_like_the_members_they_came_from(
    sample_profile: str, http_server: ScriptedHTTPServer, tmp_path: Path
) -> None:
    """A worker id holding the API token or ``password=...``, or a ``--keyword``, was written
    to ``collectors[].bound`` verbatim (``http.path`` beside it was redacted)."""
    http_server.route("/health", Reply(200, {"status": "healthy", "version": "2.0.0"}))
    http_server.route("/workers", _workers(TOKEN, f"password={PASSWORD}", "edge-01"))
    manifest, raw, members = _run(
        sample_profile, http_server, tmp_path / "b.zip", keywords=("edge-01",)
    )
    for planted in (TOKEN, "PLANTED", PASSWORD, "edge-01"):
        assert planted.encode() not in raw, planted
        for name, content in members.items():
            assert planted.encode() not in content, (planted, name)
    collectors = manifest["collectors"]
    assert isinstance(collectors, list)
    bound = [c["bound"] for c in collectors if c["id"].startswith("http.worker.")]
    assert len(bound) == 3
    listing = members["raw/http/workers.json"].decode()
    for values in bound:
        assert list(values) == ["name"]  # the key is kept, the value replaced
        assert "[REDACTED:" in values["name"]
        assert json.dumps(values["name"]) in listing  # as the member has it: re-derivation joins


def test_an_obfuscated_address_in_a_bound_value_is_the_members_pseudonym(
    sample_profile: str, http_server: ScriptedHTTPServer, tmp_path: Path
) -> None:
    http_server.route("/health", Reply(200, {"status": "healthy", "version": "2.0.0"}))
    http_server.route("/workers", _workers("10.20.30.40"))
    manifest, raw, members = _run(
        sample_profile, http_server, tmp_path / "b.zip", obfuscate=("network",)
    )
    assert b"10.20.30.40" not in raw
    collectors = manifest["collectors"]
    assert isinstance(collectors, list)
    (bound,) = [c["bound"] for c in collectors if c["id"].startswith("http.worker.")]
    assert json.dumps(bound["name"]) in members["raw/http/workers.json"].decode()


class _ShowsItsInputs(testprofile.SampleProfile):
    """A profile whose one document is what doctor handed its normalizer: the server URL,
    the inventory's hosts, the settings, and each step result's bound values and message."""

    def normalize(self, ctx: NormalizeContext) -> Sequence[EvidenceDoc]:
        seen = {
            "server_url": ctx.server_url,
            "hosts": [host.model_dump(mode="json") for host in ctx.hosts],
            "settings": dict(ctx.settings),
            "results": [
                {"collector": r.collector, "bound": dict(r.bound), "error": r.error_message}
                for r in ctx.results
            ],
        }
        return [ProductInfo(name=self.name, observed_at=ctx.observed_at, settings=seen)]


def test_what_the_normalizer_is_handed_is_redacted_once_as_the_manifest_has_it(
    sample_profile: str,
    https_server: ScriptedHTTPServer,
    tls_files: TlsFiles,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Doctor stores its evidence as the normalizer writes it, not redacted a second time
    (an address pseudonym redacted again got a pseudonym of its own). So everything the
    normalizer reads is redacted already, once: the server URL, the inventory's worker,
    the ``--ca-cert`` path, a fan-out's bound values and an error quoting the server were
    handed over as given, and only the second pass over the evidence redacted them."""
    monkeypatch.setattr(testprofile, "PROFILE", _ShowsItsInputs())
    prefix = f"/{KEYWORD}/10.20.30.42"  # a path on the server: the URL doctor records
    https_server.route(f"{prefix}/health", Reply(200, {"status": "healthy", "version": "2.0.0"}))
    https_server.route(f"{prefix}/workers", _workers("10.20.30.43", TOKEN))
    said = "worker 10.20.30.43 is not here"
    https_server.route(f"{prefix}/workers/10.20.30.43", Reply(500, said, content_type="text/plain"))
    ca_cert = tmp_path / f"{KEYWORD}.pem"
    ca_cert.write_bytes(tls_files.ca_cert.read_bytes())
    inventory = tmp_path / "inventory.yaml"
    inventory.write_text("hosts:\n  - address: local\n    role: worker\n    worker: 10.20.30.41\n")
    manifest, raw, members = _run(
        sample_profile,
        https_server,
        tmp_path / "b.zip",
        server=https_server.url + prefix,
        ca_cert=ca_cert,
        inventory=inventory,
        keywords=(KEYWORD,),
        obfuscate=("network",),
    )
    seen = json.loads(members["evidence/product.json"])["settings"]
    for planted in (KEYWORD, TOKEN, "PLANTED", "10.20.30.41", "10.20.30.42", "10.20.30.43"):
        assert planted.encode() not in raw, planted
        assert planted not in json.dumps(seen), planted
    # once: as the manifest has them (sealing redacts the target from the same values)
    target = manifest["target"]
    assert isinstance(target, dict)
    assert seen["server_url"] == target["server_url"]
    assert seen["hosts"] == target["hosts"]
    assert "[REDACTED:" in seen["settings"]["ca_cert"]
    collectors = manifest["collectors"]
    assert isinstance(collectors, list)
    recorded = {c["id"]: (c["bound"], c["error_message"]) for c in collectors}
    fan_out = [r for r in seen["results"] if r["collector"].startswith("http.worker.")]
    assert len(fan_out) == 2
    for result in fan_out:
        assert (result["bound"], result["error"]) == recorded[result["collector"]]
    # ... and as the members have them: the listing's pseudonym, in the bound value and in
    # the error quoting the server, not a pseudonym of it
    listed = json.loads(members["raw/http/workers.json"])[0]["name"]
    assert re.fullmatch(r"10\.[0-9]+\.[0-9]+\.43", listed)
    assert listed != "10.20.30.43"
    first = next(r for r in fan_out if r["collector"] == "http.worker.000")
    assert first["bound"] == {"name": listed}
    assert first["error"] == f"HTTP 500: worker {listed} is not here"


class _ReKeys(testprofile.SampleProfile):
    """A profile whose document puts what a raw member said under a key that reads as
    secret, as Flux's ``settings_sources`` does (where a setting's value came from,
    ``flux.toml``, under the setting's name), beside an address the member holds."""

    def normalize(self, ctx: NormalizeContext) -> Sequence[EvidenceDoc]:
        health = json.loads(ctx.source.read_bytes("raw/http/health.json"))
        settings = {"security.auth.token": health["source"], "peer": health["peer"]}
        return [ProductInfo(name=self.name, observed_at=ctx.observed_at, settings=settings)]


def test_evidence_gets_the_secret_rules_not_new_pseudonyms_and_the_bundle_reviews_clean(
    sample_profile: str,
    http_server: ScriptedHTTPServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """What the second pass over the evidence did that the single redaction must still do:
    a document can give a redacted value new context, a key that reads as secret, and
    ``bundler review`` (the upload gate) rejects a value standing there (the demo's Flux
    bundle did, ``evidence/product.json``, while ``allow_anonymous`` read as a secret
    key). The secret rules run over the evidence again (on redacted text they change
    nothing); the pseudonymizer's rules do not."""
    from click.testing import CliRunner

    from bundler.cli import cli

    monkeypatch.setattr(testprofile, "PROFILE", _ReKeys())
    health = {"status": "healthy", "version": "2.0.0", "source": "flux.toml", "peer": "10.20.30.45"}
    http_server.route("/health", Reply(200, health))
    http_server.route("/workers", _workers())
    bundle = tmp_path / "b.zip"
    _, _, members = _run(sample_profile, http_server, bundle, obfuscate=("network",))
    settings = json.loads(members["evidence/product.json"])["settings"]
    assert settings["security.auth.token"].startswith("[REDACTED:auth:"), settings
    peer = json.loads(members["raw/http/health.json"])["peer"]
    assert re.fullmatch(r"10\.[0-9]+\.[0-9]+\.45", peer)
    assert peer != "10.20.30.45"
    assert settings["peer"] == peer  # the member's pseudonym, not one of it
    reviewed = CliRunner(env={"BPW": BUNDLE_PASSWORD}).invoke(
        cli, ["review", str(bundle), "--password-env", "BPW"]
    )
    assert reviewed.exit_code == 0, reviewed.output


def test_a_throttled_answer_quoting_an_address_twice_names_it_once(
    sample_profile: str, http_server: ScriptedHTTPServer, tmp_path: Path
) -> None:
    """A 429's message quotes its body and its ``Retry-After``: the body was redacted by
    the task and again by the recorder, the header only by the recorder, so with
    ``--obfuscate network`` the one address read as two (and as a third in the manifest)."""
    http_server.route("/health", Reply(200, {"status": "healthy", "version": "2.0.0"}))
    busy = {"detail": "10.20.30.44 is busy"}
    http_server.route("/workers", Reply(429, busy, headers={"Retry-After": "ask 10.20.30.44"}))
    manifest, raw, _ = _run(sample_profile, http_server, tmp_path / "b.zip", obfuscate=("network",))
    assert b"10.20.30.44" not in raw
    collectors = manifest["collectors"]
    assert isinstance(collectors, list)
    (message,) = [c["error_message"] for c in collectors if c["id"] == "http.workers"]
    addresses = set(re.findall(r"10\.[0-9]+\.[0-9]+\.44", message))
    assert len(addresses) == 1, message
    (pseudonym,) = addresses
    assert message == (
        f'HTTP 429: {{"detail": "{pseudonym} is busy"}} '
        f"(the server asked to retry after 'ask {pseudonym}'; not waited for)"
    )


def test_a_content_type_is_stored_redacted(
    sample_profile: str, http_server: ScriptedHTTPServer, tmp_path: Path
) -> None:
    """``Content-Type: application/json; charset=utf-8; token=<TOKEN>`` put the token in
    ``collectors[].http.content_type``, and a password parameter its password."""
    health = {"status": "healthy", "version": "2.0.0"}
    http_server.route(
        "/health",
        Reply(200, health, content_type=f"application/json; charset=utf-8; token={TOKEN}"),
    )
    http_server.route(
        "/workers", Reply(200, [], content_type=f"application/json; password={PASSWORD}")
    )
    utf8 = "text/plain; name=café-Ω".encode().decode("latin-1")  # UTF-8 bytes on the wire
    http_server.route("/metrics", Reply(200, "up 1\n", content_type=utf8))
    manifest, raw, _ = _run(sample_profile, http_server, tmp_path / "b.zip")
    for planted in (TOKEN, "PLANTED", PASSWORD):
        assert planted.encode() not in raw, planted
    collectors = manifest["collectors"]
    assert isinstance(collectors, list)
    types = {c["id"]: c["http"]["content_type"] for c in collectors if c.get("http")}
    assert types["http.health"].startswith("application/json; charset=utf-8; token=[REDACTED")
    assert types["http.workers"].startswith("application/json; password=[REDACTED:")
    assert types["http.metrics"].startswith("text/plain; name=caf")  # stored, whatever httpx made


def test_a_header_keeps_no_control_or_format_character() -> None:
    """A stored header is shown by ``inspect`` and reports: an escape, a line break or a
    right-to-left override in it would rewrite what the reader sees."""
    assert (
        header_text("text/plain;\x1b[31m x=\r\n1\u202e")
        == "text/plain;\ufffd[31m x=\ufffd\ufffd1\ufffd"
    )
    assert header_text("application/json; charset=utf-8") == "application/json; charset=utf-8"
    assert header_text(None) is None


def _no_part_of(secret: str, text: str) -> None:
    """Not even the head of ``secret``: 8 characters of it are already a leak."""
    assert secret[:8] not in text, text


def test_an_error_body_is_redacted_before_it_is_cut(
    sample_profile: str, http_server: ScriptedHTTPServer, tmp_path: Path
) -> None:
    """A 401 body of 179 characters, a space and the echoed token: cut to 200 characters
    first, ``tok-PLANTED-9f8e7d6`` reached stderr, the manifest, the evidence and the
    analysis; redacted first, the token is gone whole, and the cut drops the partial
    word (the redaction token it would halve)."""
    http_server.route("/health", Reply(200, {"status": "healthy", "version": "2.0.0"}))
    split = "E" * 179 + " " + TOKEN + " rest"
    http_server.route("/workers", Reply(401, split, content_type="text/plain"))
    halved = "F" * 185 + f" password={PASSWORD} and more words after it"
    http_server.route("/metrics", Reply(500, halved, content_type="text/plain"))
    manifest, raw, members = _run(sample_profile, http_server, tmp_path / "b.zip")
    _no_part_of(TOKEN, raw.decode())
    for name, content in members.items():
        _no_part_of(TOKEN, content.decode("utf-8", "replace"))
        assert PASSWORD.encode() not in content, name
    collectors = manifest["collectors"]
    assert isinstance(collectors, list)
    messages = {c["id"]: c["error_message"] for c in collectors}
    # the redaction token is longer than the token: it does not fit, and goes whole
    assert messages["http.workers"] == "HTTP 401: " + "E" * 179 + "…"
    metrics = messages["http.metrics"]
    assert metrics.startswith("HTTP 500: " + "F" * 185 + " password=")
    assert "Hunter" not in metrics
    assert re.fullmatch(r"[^\[]*(\[REDACTED:[a-z-]+:[0-9a-f]{8}\][^\[]*)*", metrics)  # none halved


def test_a_failed_commands_stderr_is_redacted_before_it_is_cut(
    sample_profile: str,
    http_server: ScriptedHTTPServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A command's last stderr line was cut to 300 characters before redaction (the same
    leak over SSH or on this machine); ``cat`` of a missing file says the name back."""
    from bundler.collect.plan import CommandStep, Plan
    from tests.collect import testprofile

    said = f"cat: {tmp_path}/"  # what cat says before the name; the old cut was at 300
    fill = 300 - 12 - len(said) - 1  # the token starts 12 characters before the cut
    missing = tmp_path / ("G" * 100 + " " + "G" * (fill - 101) + " " + TOKEN + " tail")
    plan = Plan(
        profile="testprod",
        steps=[
            testprofile.PLAN.steps[0],  # /health
            CommandStep(id="cat", argv=["cat", str(missing)], member="hosts/{alias}/cat.txt"),
        ],
    )
    monkeypatch.setattr(testprofile, "PROFILE", testprofile.SampleProfile(plan))
    http_server.route("/health", Reply(200, {"status": "healthy", "version": "2.0.0"}))
    manifest, raw, members = _run(sample_profile, http_server, tmp_path / "b.zip", local=True)
    collectors = manifest["collectors"]
    assert isinstance(collectors, list)
    (cat,) = [c for c in collectors if c["id"].endswith(".cat")]
    assert cat["status"] == "failed"
    assert cat["error_message"].startswith("exit 1: cat: ")
    _no_part_of(TOKEN, raw.decode())
    for content in members.values():
        _no_part_of(TOKEN, content.decode("utf-8", "replace"))


def test_excerpts_cut_between_words_after_redacting() -> None:
    """The helpers every quoted remote text goes through, with the bundle's real redactor."""
    from bundler.collect.errors import excerpt, whole_words
    from bundler.doctor.sinks import redaction_transform

    redact = redaction_transform([TOKEN]).redact_text
    assert whole_words("short", 40) == "short"
    assert whole_words("abc def" + "x" * 50, 10) == "abc…"
    assert whole_words("x" * 50, 10) == "…"  # one long word: nothing of it, not its head
    assert whole_words('{"a":"b","token":"' + TOKEN + '"}', 30) == '{"a":"b","token":…'
    quoted = excerpt("E" * 179 + " " + TOKEN + " rest", redact, 200)
    assert TOKEN[:8] not in quoted
    assert quoted.endswith("…")
    assert excerpt("line one\n  password=Hunter2Hunter2!\n", redact, 200).startswith(
        "line one password=[REDACTED:"
    )
    # a body longer than the window: cut between words before redaction sees it
    long = "H" * 4090 + " " + TOKEN
    assert TOKEN[:8] not in excerpt(long, lambda text: text, 5000)


@pytest.mark.sshd
def test_a_stat_failure_over_ssh_is_redacted_before_it_is_cut(
    sample_profile: str,
    http_server: ScriptedHTTPServer,
    ssh_lab: SshLab,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A host without SFTP is asked ``stat`` for a file; its last stderr line was cut to
    300 characters in the transport (``CommandResult.stderr_line``) before the recorder
    redacted it, so a ``--keyword`` the cut went through left its head in the manifest.
    ``stat`` says the path back; the keyword is planted in it across character 300."""
    from bundler.collect.plan import FileStep, Plan
    from tests.collect import testprofile

    instance = ssh_lab.start("nosftp", sftp=False)  # stat by command, not by SFTP
    ssh_lab.add_host("nosftp", instance)
    ssh_lab.trust(instance)
    regular = tmp_path / "file.txt"
    regular.write_text("not a directory\n")
    said = f"stat: cannot statx '{regular}/"  # coreutils < 8.32 says "stat": one earlier
    fill = 300 - 10 - len(said)  # the keyword starts 10 characters before the old cut
    parts = ["G" * 100 for _ in range(fill // 101)]
    parts.append("G" * (fill - 101 * len(parts) - 1))
    below = "/".join(parts) + " " + KEYWORD + " tail"  # components under NAME_MAX
    path = f"{regular}/{below}"
    plan = Plan(
        profile="testprod",
        steps=[
            testprofile.PLAN.steps[0],  # /health
            FileStep(id="conf", path=path, member="hosts/{alias}/conf.txt"),
        ],
    )
    monkeypatch.setattr(testprofile, "PROFILE", testprofile.SampleProfile(plan))
    http_server.route("/health", Reply(200, {"status": "healthy", "version": "2.0.0"}))
    manifest, raw, members = _run(
        sample_profile,
        http_server,
        tmp_path / "b.zip",
        ssh=("nosftp",),
        ssh_config=ssh_lab.ssh_config,
        known_hosts=ssh_lab.known_hosts,
        keywords=(KEYWORD,),
    )
    collectors = manifest["collectors"]
    assert isinstance(collectors, list)
    (conf,) = [c for c in collectors if c["id"].endswith(".conf")]
    assert conf["status"] == "failed", conf
    assert conf["error_class"] == "FileUnreadable"
    message = conf["error_message"]
    assert message.startswith("stat: cannot stat"), message
    assert "Not a directory" not in message  # cut: it was longer than 300 characters
    assert len(message) <= 301
    _no_part_of(KEYWORD, raw.decode())
    for content in members.values():
        _no_part_of(KEYWORD, content.decode("utf-8", "replace"))


def test_an_unsupported_content_encoding_is_redacted_before_it_is_cut(
    sample_profile: str, http_server: ScriptedHTTPServer, tmp_path: Path
) -> None:
    """The coding's name was cut to 40 characters in the transport, before the recorder
    redacted the message: a keyword across character 40 left its head."""
    http_server.route("/health", Reply(200, {"status": "healthy", "version": "2.0.0"}))
    coding = "x" * 29 + " " + KEYWORD
    http_server.route("/workers", Reply(200, b"[]", headers={"Content-Encoding": coding}))
    manifest, raw, members = _run(
        sample_profile, http_server, tmp_path / "b.zip", keywords=(KEYWORD,)
    )
    collectors = manifest["collectors"]
    assert isinstance(collectors, list)
    (workers,) = [c for c in collectors if c["id"] == "http.workers"]
    assert workers["error_class"] == "BadContentEncoding"
    assert workers["error_message"].startswith("unsupported Content-Encoding 'xxxx")
    _no_part_of(KEYWORD, raw.decode())
    for content in members.values():
        _no_part_of(KEYWORD, content.decode("utf-8", "replace"))


def test_a_long_message_quoting_the_remote_side_is_cut_only_after_redaction() -> None:
    """What a transport quotes whole (it holds no redactor) is cut by the recorder, after
    redacting it: a secret across the limit goes whole, none of it is left."""
    from bundler.archive.contracts import MemorySink
    from bundler.collect.errors import FileUnreadable
    from bundler.collect.recorder import Recorder

    recorder = Recorder(MemorySink(), secrets=(KEYWORD,))
    record = recorder.register("ssh.h01.conf", CollectorKind.SSH, "h01")
    said = "E" * 95 + " " + KEYWORD + " and the rest of what the host said"
    recorder.finish(record, error=FileUnreadable(said, limit=100))
    (outcome,) = recorder.outcomes()
    assert outcome.error_message == "E" * 95 + "…"


def test_the_recorder_redacts_every_string_the_remote_side_gave_exactly_once() -> None:
    """The recorder is the one place an outcome's remote text is redacted: sealing only
    gives it the second pass (values learned since). Redacting it twice is not harmless,
    so the test's redaction marks what it saw: a value marked twice was redacted twice."""
    from bundler.archive.contracts import MemorySink
    from bundler.archive.manifest_draft import OWN_FIELDS
    from bundler.collect.errors import HttpStatusError
    from bundler.collect.recorder import Recorder
    from schemas import CollectorOutcome
    from tests.archive.test_manifest_draft import _string_fields

    class Marking(MemorySink):
        def redact_text(self, text: str) -> str:
            return f"<{text}>"

    recorder = Recorder(Marking())
    record = recorder.register(
        "http.worker.000",
        CollectorKind.HTTP,
        "/workers/{name}",
        step="worker",
        bound={"name": "w1"},
    )
    record.http_path, record.http_query, record.content_type = "/workers/w1", "a=b", "text/plain"
    recorder.finish(record, error=HttpStatusError("HTTP 500: w1 is down"), note="retried")
    quoted = recorder.register("http.metrics", CollectorKind.HTTP, "/metrics", step="metrics")
    quoted.http_path = "/metrics"
    # a task's own excerpt of the body: redacted already, only cut here
    recorder.finish(quoted, error=HttpStatusError("HTTP 500: <said>", redacted=True))
    (outcome, other) = (o.to_schema() for o in recorder.outcomes())
    remote = {path for path, _ in _string_fields(CollectorOutcome)} - OWN_FIELDS
    assert outcome.http is not None
    redacted = {
        "bound": outcome.bound["name"],
        "http.path": outcome.http.path,
        "http.query": outcome.http.query,
        "http.content_type": outcome.http.content_type,
        "error_message": outcome.error_message,
        "note": outcome.note,
    }
    assert set(redacted) == remote, "a new remote field: redact it in the recorder, test it here"
    assert redacted == {
        "bound": "<w1>",
        "http.path": "</workers/w1>",
        "http.query": "<a=b>",
        "http.content_type": "<text/plain>",
        "error_message": "<HTTP 500: w1 is down>",
        "note": "<retried>",
    }
    assert other.error_message == "HTTP 500: <said>"
