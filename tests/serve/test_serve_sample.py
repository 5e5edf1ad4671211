"""``bundler serve`` on a committed sample bundle, through real HTTP.

The route tests serve the sample as a bundler from before recorded requests
(``CollectorOutcome.http``) wrote it: its manifest without them, so they also
prove the fallback (paths, queries and statuses rebuilt from the Flux plan
answer the same routes). The committed sample records them; it is served too,
and the live-Flux test (``test_serve_flux``) covers such bundles in depth.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from bundler.archive import open_bundle
from bundler.cli.options import OpenSecrets
from samples.catalog import BUNDLES_DIR, PASSWORD_ENV, SAMPLE_PASSWORD
from samples.flux_lab import FluxInstall
from samples.stopping import stop_child
from tests.support.sample_bundles import load_sample, write_sample_dir
from tests.support.serving import Served, serving

SAMPLE = BUNDLES_DIR / "flux-hung.zip"
ENV = os.environ | {PASSWORD_ENV: SAMPLE_PASSWORD}


def bundler(*args: str, env: dict[str, str] = ENV) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bundler", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )


def extracted(tmp_path: Path, name: str = "lyftdata-healthy.zip") -> Path:
    """A sample extracted to a directory bundle, so a test can edit it as an attacker could."""
    folder = tmp_path / "extracted"
    done = bundler("extract", str(BUNDLES_DIR / name), "--password-env", PASSWORD_ENV,
                   "--to", str(folder))  # fmt: skip
    assert done.returncode == 0, done.stderr
    return folder


def edit_exchanges(folder: Path, changes: dict[str, dict[str, object]]) -> None:
    """Change ``collectors[].http`` of the named collectors in the manifest of ``folder``."""
    path = folder / "manifest.json"
    manifest = json.loads(path.read_text())
    for collector in manifest["collectors"]:
        if collector["id"] in changes:
            collector["http"].update(changes[collector["id"]])
    path.write_text(json.dumps(manifest))


RECORDED_SINCE = ("step", "bound", "exit_code", "http")
"""What a collector's outcome in the manifest records since bundles record their requests."""


def predating_recorded_requests(tmp_path: Path) -> Path:
    """The Flux sample as an older bundler wrote it: no collector records its request."""
    folder = extracted(tmp_path, SAMPLE.name)
    path = folder / "manifest.json"
    manifest = json.loads(path.read_text())
    assert any("http" in collector for collector in manifest["collectors"])
    for collector in manifest["collectors"]:
        for name in RECORDED_SINCE:
            collector.pop(name, None)
    path.write_text(json.dumps(manifest))
    return folder


def member(name: str) -> bytes:
    secrets = OpenSecrets(password_env=PASSWORD_ENV)
    with open_bundle(SAMPLE, secrets, environ={PASSWORD_ENV: SAMPLE_PASSWORD}) as reader:
        return reader.read_bytes(name)


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    folder = predating_recorded_requests(tmp_path_factory.mktemp("older"))
    args = [str(folder), "--password-env", PASSWORD_ENV]
    with serving(args, ENV, tmp_path_factory.mktemp("serve")) as running:
        yield running


def test_the_banner_names_a_loopback_url_and_the_flux_commands(served: Served) -> None:
    assert served.url.startswith("http://127.0.0.1:")
    banner = "\n".join(served.banner)
    assert f"flux worker list --server-url {served.url}" in banner
    assert f"flux worker show w1 --server-url {served.url}" in banner
    assert f"--detailed --server-url {served.url}" in banner
    assert "predates recorded requests" in served.log()


def test_the_committed_sample_is_served_from_its_recorded_requests(tmp_path: Path) -> None:
    with serving([str(SAMPLE), "--password-env", PASSWORD_ENV], ENV, tmp_path) as running:
        workers = httpx.get(f"{running.url}/workers", timeout=10)
        assert (workers.status_code, workers.headers["x-bundler-replay"]) == (200, "captured")
        assert workers.content == member("raw/http/workers.json")
        log = running.log()
    assert "GET /workers -> 200 captured (raw/http/workers.json)" in log
    assert "predates recorded requests" not in log


def test_captured_routes_answer_with_the_bundle_bytes(served: Served) -> None:
    workers = httpx.get(f"{served.url}/workers", timeout=10)
    assert workers.status_code == 200
    assert workers.headers["x-bundler-replay"] == "captured"
    assert workers.headers["content-type"] == "application/json"
    assert workers.content == member("raw/http/workers.json")
    first = json.loads(member("raw/http/workers.json"))[0]["name"]
    one = httpx.get(f"{served.url}/workers/{first}", timeout=10)
    assert one.content == member("raw/http/worker/000.json")
    running = httpx.get(f"{served.url}/executions", params={"limit": "200", "state": "RUNNING"})
    assert running.status_code == 200  # the query matches in any order
    assert running.content == member("raw/http/executions-running.json")


def test_a_route_not_captured_is_a_404_that_says_so(served: Served) -> None:
    reply = httpx.get(f"{served.url}/executions", params={"limit": "50"}, timeout=10)
    assert reply.status_code == 404
    assert reply.headers["x-bundler-replay"] == "not-captured"
    body = reply.json()
    assert "not captured" in body["detail"]
    assert "/executions?state=RUNNING&limit=200" in body["captured_for_this_path"]
    assert httpx.get(f"{served.url}/namespaces", timeout=10).status_code == 404


def test_refused_routes_and_every_other_method_are_405(served: Served) -> None:
    connect = httpx.get(f"{served.url}/workers/w1/connect", timeout=10)
    assert (connect.status_code, connect.headers["x-bundler-replay"]) == (405, "refused")
    cancel = httpx.get(f"{served.url}/workflows/default/sleeper/cancel/abc", timeout=10)
    assert (cancel.status_code, cancel.headers["x-bundler-replay"]) == (405, "refused")
    secrets = httpx.get(f"{served.url}/admin/secrets", timeout=10)
    assert secrets.status_code == 405
    for method in ("POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"):
        reply = httpx.request(method, f"{served.url}/workers", content=b"{}", timeout=10)
        assert (reply.status_code, reply.headers["x-bundler-replay"]) == (405, "method"), method


def test_the_request_log_says_what_was_served_and_what_was_missing(served: Served) -> None:
    httpx.get(f"{served.url}/health", timeout=10)
    httpx.get(f"{served.url}/nothing-here", timeout=10)
    log = served.log()
    assert "GET /health -> 200 captured (raw/http/health.json)" in log
    assert "GET /nothing-here -> 404 not-captured" in log


def test_ctrl_c_stops_it_with_exit_130(tmp_path: Path) -> None:
    with serving([str(SAMPLE), "--password-env", PASSWORD_ENV], ENV, tmp_path) as running:
        httpx.get(f"{running.url}/ready", timeout=10)
        assert running.interrupt() == 130
        assert "stopped after 1 request, 0 not captured" in running.log()
        assert "Traceback" not in running.log()


def test_a_wrong_password_is_exit_2_and_serves_nothing() -> None:
    result = bundler(
        "serve", str(SAMPLE), "--password-env", "WRONG_PW", env=ENV | {"WRONG_PW": "no"}
    )
    assert result.returncode == 2, result.stderr
    assert "URL:" not in result.stdout
    assert result.stderr.startswith("bundler: error:")


def test_a_non_loopback_host_needs_allow_network() -> None:
    result = bundler("serve", str(SAMPLE), "--host", "0.0.0.0", "--password-env", PASSWORD_ENV)
    assert result.returncode == 2
    assert "--allow-network" in result.stderr


def test_a_hosts_only_bundle_is_a_clear_error(tmp_path: Path) -> None:
    tree = tmp_path / "hosts" / "h01"
    tree.mkdir(parents=True)
    (tree / "sysinfo.json").write_text('{"hostname": "a"}\n')
    bundle = tmp_path / "hosts-only.zip"
    made = bundler(
        "redact", str(tmp_path / "hosts"), "--out", str(bundle), "--password-env", PASSWORD_ENV
    )
    assert made.returncode == 0, made.stderr
    result = bundler("serve", str(bundle), "--password-env", PASSWORD_ENV)
    assert result.returncode == 2
    assert "holds no captured control-plane API state" in result.stderr


def test_a_lyftdata_bundle_answers_its_contract_routes(tmp_path: Path) -> None:
    bundle = BUNDLES_DIR / "lyftdata-healthy.zip"
    with serving([str(bundle), "--password-env", PASSWORD_ENV], ENV, tmp_path) as running:
        assert f"curl -s {running.url}/api/workers" in "\n".join(running.banner)
        secrets = OpenSecrets(password_env=PASSWORD_ENV)
        with open_bundle(bundle, secrets, environ={PASSWORD_ENV: SAMPLE_PASSWORD}) as reader:
            expected = {
                "/api/workers": reader.read_bytes("raw/http/workers.json"),
                "/api/workers/edge-01/logs?limit=200": reader.read_bytes(
                    "raw/http/worker-logs/000.json"
                ),
            }
        for target, body in expected.items():
            reply = httpx.get(f"{running.url}{target}", timeout=10)
            assert (reply.status_code, reply.content) == (200, body), target
        removal = httpx.get(f"{running.url}/api/workers/edge-01/remove", timeout=10)
        assert (removal.status_code, removal.headers["x-bundler-replay"]) == (405, "refused")


def test_a_recorded_status_or_content_type_that_is_not_http_is_never_sent(tmp_path: Path) -> None:
    folder = extracted(tmp_path)
    edit_exchanges(folder, {
        "http.health": {"content_type": "application/json\r\nSet-Cookie: injected=1"},
        "http.version": {"content_type": 'application/json; profile="Flux-\u20ac"'},
        "http.settings": {"status_code": 1000},
        "http.license": {"status_code": 204},
    })  # fmt: skip
    with serving([str(folder), "--password-env", PASSWORD_ENV], ENV, tmp_path) as running:
        for path in ("/api/health", "/api/version", "/api/settings/effective"):
            reply = httpx.get(f"{running.url}{path}", timeout=10)
            assert (reply.status_code, reply.headers["x-bundler-replay"]) == (502, "unsound")
            assert "set-cookie" not in reply.headers
            assert "not served" in reply.json()["detail"]
        with httpx.Client(base_url=running.url, timeout=10) as client:  # one keep-alive connection
            empty = client.get("/api/license/show")
            assert (empty.status_code, empty.content) == (204, b"")
            assert client.get("/api/workers").status_code == 200
        log = running.log()
    assert "/api/settings/effective: not served (the recorded status 1000" in log
    assert "GET /api/version -> 502 unsound" in log
    assert "Traceback" not in log


def test_a_body_that_is_not_a_captured_http_response_is_never_served(tmp_path: Path) -> None:
    """Serve answers with the member a route's collector names in the manifest. Doctor only
    names its own response there (``raw/http/``, listed as that collector's), but a manifest
    edited to name ``manifest.json``, the redaction report, evidence or a host's log had
    serve send it as the API's answer, marked ``captured``; another collector's response
    is not this request's answer either."""
    folder = extracted(tmp_path)
    path = folder / "manifest.json"
    manifest = json.loads(path.read_text())
    named = {
        "http.health": "manifest.json",
        "http.version": "redaction-report.json",
        "http.license": "evidence/product.json",
        "http.settings": "hosts/h01/logs/00.log",
        "http.jobs": "raw/http/workers.json",
    }
    for collector in manifest["collectors"]:
        if collector["id"] in named:
            collector["members"] = [named[collector["id"]]]
    path.write_text(json.dumps(manifest))
    kept = {name: (folder / name).read_bytes() for name in named.values()}
    with serving([str(folder), "--password-env", PASSWORD_ENV], ENV, tmp_path) as running:
        for target in (
            "/api/health", "/api/version", "/api/license/show", "/api/settings/effective",
            "/api/jobs",
        ):  # fmt: skip
            reply = httpx.get(f"{running.url}{target}", timeout=10)
            assert (reply.status_code, reply.headers["x-bundler-replay"]) == (502, "unsound")
            assert "not served" in reply.json()["detail"], target
            assert not any(body[:200] in reply.content for body in kept.values()), target
        workers = httpx.get(f"{running.url}/api/workers", timeout=10)
        assert (workers.status_code, workers.content) == (200, kept["raw/http/workers.json"])
        log = running.log()
    assert "/api/health: not served (the recorded body member 'manifest.json' is not" in log
    assert "/api/jobs: not served (the recorded body member 'raw/http/workers.json' is " in log
    assert "GET /api/version -> 502 unsound" in log
    assert "Traceback" not in log


@pytest.mark.flux
def test_the_flux_cli_is_answered_through_the_host_check(
    flux_install: FluxInstall, tmp_path: Path
) -> None:
    """Flux's CLI (httpx) sends ``Host: 127.0.0.1:PORT`` or ``localhost:PORT``: both answered."""
    env = {"PATH": f"{flux_install.bin_dir}:/usr/bin:/bin", "HOME": str(tmp_path)}
    with serving([str(SAMPLE), "--password-env", PASSWORD_ENV], ENV, tmp_path) as running:
        local = running.url.replace("127.0.0.1", "localhost")
        for url in (running.url, local):
            listed = subprocess.run(
                [str(flux_install.flux), "worker", "list", "--server-url", url],
                capture_output=True, text=True, cwd=tmp_path, env=env, timeout=60, check=False,
            )  # fmt: skip
            assert listed.returncode == 0, listed.stderr
            assert "w1" in listed.stdout
        assert "misdirected" not in running.log()


def test_a_tampered_member_of_a_directory_bundle_says_why_it_is_not_served(
    tmp_path: Path,
) -> None:
    folder = extracted(tmp_path)
    with (folder / "raw/http/workers.json").open("ab") as body:
        body.write(b"X")  # present, but not what the manifest says
    with serving([str(folder), "--password-env", PASSWORD_ENV], ENV, tmp_path) as running:
        reply = httpx.get(f"{running.url}/api/workers", timeout=10)
        assert (reply.status_code, reply.headers["x-bundler-replay"]) == (502, "unsound")
        detail = reply.json()["detail"]
        log = running.log()
    assert "missing" not in detail
    assert "does not match its manifest checksum" in detail
    assert "raw/http/workers.json: not served (" in log


def test_a_route_whose_member_is_over_the_json_cap_is_answered_whole(tmp_path: Path) -> None:
    """The JSON cap bounds what a reader parses; serve parses no body, it sends the bytes the
    server sent: a worker list ``analyze`` names as not read is still answered as captured."""
    source, _ = load_sample("lyftdata-healthy")
    body = source.read_bytes("raw/http/workers.json")
    body += b" " * (140_000 - len(body))
    folder = write_sample_dir("lyftdata-healthy", tmp_path / "b", {"raw/http/workers.json": body})
    env = ENV | {"BUNDLER_MAX_JSON_BYTES": "128KiB"}
    with serving([str(folder)], env, tmp_path) as running:
        reply = httpx.get(f"{running.url}/api/workers", timeout=10)
        assert (reply.status_code, reply.content) == (200, body)
        assert reply.headers["x-bundler-replay"] == "captured"


def _default_sigint() -> None:
    """SIGINT as a user's Ctrl-C, even under a runner that ignores it (see tests/support)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_a_lost_stderr_does_not_stop_the_answers_and_ctrl_c_is_still_130() -> None:
    """stderr's reader goes away (``2> >(head -3)``): requests are answered, exit 130."""
    process = subprocess.Popen(
        [sys.executable, "-m", "bundler", "serve", str(SAMPLE), "--password-env", PASSWORD_ENV],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env=ENV, preexec_fn=_default_sigint,
    )  # fmt: skip
    try:
        assert process.stdout is not None
        assert process.stderr is not None
        url = ""
        for line in process.stdout:
            url = line.removeprefix("URL: ").strip() if line.startswith("URL: ") else url
            if line.startswith("Ctrl-C"):
                break
        process.stderr.close()  # the log's reader is gone
        for path in ("/health", "/workers", "/ready"):
            reply = httpx.get(f"{url}{path}", timeout=10)
            assert reply.status_code == 200, path
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=30) == 130
    finally:
        stop_child(process)
        if process.stdout is not None:
            process.stdout.close()


def without_error_pages(tmp_path: Path) -> Path:
    """The LyftData sample whose every request was answered 401, with no body kept: as
    bundler wrote refusals before it kept a server's error page, or a server answered."""
    folder = extracted(tmp_path, "lyftdata-token_rejected.zip")
    path = folder / "manifest.json"
    manifest = json.loads(path.read_text())
    bodies = [m["path"] for m in manifest["members"] if m["path"].startswith("raw/http/")]
    assert len(bodies) == 8  # the error pages this bundler keeps
    for name in bodies:
        (folder / name).unlink()
    manifest["members"] = [m for m in manifest["members"] if m["path"] not in bodies]
    for collector in manifest["collectors"]:
        if set(collector["members"]) & set(bodies):
            collector.update(members=[], bytes=0)
    path.write_text(json.dumps(manifest))
    return folder


def test_a_bundle_of_status_only_answers_counts_and_suggests_them(tmp_path: Path) -> None:
    bundle = without_error_pages(tmp_path)
    with serving([str(bundle), "--password-env", PASSWORD_ENV], ENV, tmp_path) as running:
        banner = "\n".join(running.banner)
        assert "  8 captured routes (8 with a status and no body);" in banner
        suggested = f"curl -s {running.url}/api/workers"
        assert suggested in banner
        reply = httpx.get(f"{running.url}/api/workers", timeout=10)
        assert (reply.status_code, reply.headers["x-bundler-replay"]) == (401, "status-only")


def test_a_refusal_with_its_error_page_is_replayed_with_both(tmp_path: Path) -> None:
    bundle = BUNDLES_DIR / "lyftdata-token_rejected.zip"  # every request answered 401
    with serving([str(bundle), "--password-env", PASSWORD_ENV], ENV, tmp_path) as running:
        assert "  8 captured routes; everything else" in "\n".join(running.banner)
        reply = httpx.get(f"{running.url}/api/workers", timeout=10)
        assert reply.status_code == 401
        assert reply.headers["x-bundler-replay"] != "status-only"
        assert reply.json() == {"error": "unauthorized", "message": "token rejected"}


def test_a_bracketed_ipv6_host_is_bound_as_the_address(tmp_path: Path) -> None:
    args = [str(SAMPLE), "--host", "[::1]", "--password-env", PASSWORD_ENV]
    with serving(args, ENV, tmp_path) as running:
        assert running.url.startswith("http://[::1]:")
        assert httpx.get(f"{running.url}/health", timeout=10).status_code == 200


def test_sigterm_stops_it_like_ctrl_c(tmp_path: Path) -> None:
    with serving([str(SAMPLE), "--password-env", PASSWORD_ENV], ENV, tmp_path) as running:
        httpx.get(f"{running.url}/ready", timeout=10)
        running.process.send_signal(signal.SIGTERM)
        assert running.process.wait(timeout=30) == 130
        assert "stopped after 1 request, 0 not captured" in running.log()
        assert "Traceback" not in running.log()


def test_the_banner_shows_a_recorded_server_url_as_characters(tmp_path: Path) -> None:
    """The URL doctor recorded is bundle text: an OSC 8 link or ESC in it must stay inert."""
    folder = extracted(tmp_path)
    path = folder / "manifest.json"
    manifest = json.loads(path.read_text())
    manifest["target"]["server_url"] = "https://srv\x1b]8;;http://evil.example\x1b\\CLICK\x1b[2K"
    path.write_text(json.dumps(manifest))
    with serving([str(folder)], ENV, tmp_path) as running:
        banner = "\n".join(running.banner)
    assert "\x1b" not in banner
    assert "from https://srv\\x1b]8;;http://evil.example\\x1b\\CLICK\\x1b[2K at " in banner
