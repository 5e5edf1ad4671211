"""The HTML report in a real headless Chromium: every committed sample, and a hostile bundle.

One browser serves the whole module (see ``tests/support/chromium.py``). For
each sample the page must show the verdict, first failed layer and main
finding the samples' catalog gives, make no network request (the DevTools
network log holds only the page itself, and the recording proxy saw nothing
but Chromium's own background services), log nothing to the console, and
look like something (a screenshot with real colour variety). The hostile
bundle's payloads, had any run, would change ``document.title``: it never does.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner

from bundler.cli import cli
from samples import catalog
from tests.support.chromium import Browser, ConnectionRecorder, Page, dump_dom, file_url
from tests.support.hostile import PWNED, SCRIPT, write_hostile_bundle
from tests.support.png import colour_variety
from tests.support.requirements import need
from tests.support.sample_bundles import private_identity

ENTRIES = catalog.load_catalog() if catalog.CATALOG_PATH.exists() else []
BROWSER_OWN_HOSTS = frozenset(
    {"update.googleapis.com", "accounts.google.com", "clients2.google.com"}
)
"""Chromium's own background services (component updates, sign-in, network time): the
browser calls them whatever the page is, so the proxy check ignores exactly these hosts."""


CANARY = (
    "<!DOCTYPE html><html><head><title>canary</title></head><body><p>canary</p>"
    '<img src="http://canary.invalid/x.png"><script>console.error("canary")</script></body></html>'
)
"""Not a report: a page that does what a report must not, to prove the checks can see it."""


def _chromium() -> str:
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    need(path is not None, "chromium is not installed (scripts/setup.sh installs it)")
    assert path is not None
    return path


@dataclass
class Rendered:
    pages: dict[str, Page]
    stderr_console: list[str]
    proxied: list[str]
    html: dict[str, Path]


def _render_samples(out: Path, identity: Path) -> dict[str, Path]:
    runner = CliRunner()
    env = {catalog.PASSWORD_ENV: catalog.SAMPLE_PASSWORD}
    written = {}
    for entry in ENTRIES:
        bundle = catalog.BUNDLES_DIR / entry.file
        opening = (
            ["--identity", str(identity)]
            if entry.opening == "identity"
            else ["--password-env", catalog.PASSWORD_ENV]
        )
        target = out / (entry.file.removesuffix(".zip") + ".html")
        result = runner.invoke(
            cli, ["analyze", str(bundle), "--format", "html", "-o", str(target), *opening], env=env
        )
        assert result.exit_code in (0, 1, 3), result.output
        written[entry.file] = target
    return written


@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Rendered]:
    executable = _chromium()
    out = tmp_path_factory.mktemp("html")
    identity = private_identity(out)
    html = _render_samples(out, identity)
    hostile = write_hostile_bundle(out / "hostile")
    result = CliRunner().invoke(
        cli, ["analyze", str(hostile), "--format", "html", "-o", str(out / "hostile.html")]
    )
    assert result.exit_code == 1, result.output
    html["hostile"] = out / "hostile.html"
    diffed = CliRunner().invoke(
        cli,
        [
            "diff",
            str(catalog.BUNDLES_DIR / "flux-healthy.zip"),
            str(catalog.BUNDLES_DIR / "flux-hung.zip"),
            "--format", "html", "-o", str(out / "diff.html"),
            "--password-env", catalog.PASSWORD_ENV,
        ],
        env={catalog.PASSWORD_ENV: catalog.SAMPLE_PASSWORD},
    )  # fmt: skip
    assert diffed.exit_code == 1, diffed.output
    html["diff"] = out / "diff.html"
    html["canary"] = out / "canary.html"
    html["canary"].write_text(CANARY)
    with Browser(executable) as browser:
        pages = {name: browser.load(file_url(path)) for name, path in html.items()}
        yield Rendered(pages, browser.stderr_console(), list(browser.recorder.seen), html)


def _host(request_line: str) -> str:
    method, _, rest = request_line.partition(" ")
    target = rest.split(" ")[0]
    if method == "CONNECT":
        return target.rsplit(":", 1)[0]
    return target.split("//", 1)[-1].split("/", 1)[0].split(":")[0]


def test_every_sample_has_a_page() -> None:
    assert len(ENTRIES) >= 20


@pytest.mark.parametrize("entry", ENTRIES, ids=[e.file for e in ENTRIES])
def test_sample_page_shows_the_verdict_layer_and_main_finding(
    rendered: Rendered, entry: catalog.SampleEntry
) -> None:
    page = rendered.pages[entry.file]
    assert page.title.startswith("bundler analyze: " + entry.verdict.upper())
    top = page.text[: page.text.index("Fleet overview")]
    assert entry.verdict.upper() in top
    if entry.first_failed_layer:
        assert f"first failed layer: {entry.first_failed_layer}" in top
    if entry.code:
        assert f"Main finding: {entry.code}" in top
    assert "Timeline" in page.text
    assert page.requests == [page.url]  # the document itself, nothing else
    assert page.console == []
    assert page.broken_words == []
    colours, busy = colour_variety(page.png)
    assert colours >= 12, "the screenshot looks blank"
    assert busy >= 0.05, "the screenshot is almost one colour"
    assert rendered.html[entry.file].stat().st_size < 1_000_000


def test_no_page_logged_to_the_console_or_reached_the_network(rendered: Rendered) -> None:
    assert [line for line in rendered.stderr_console if "canary" not in line] == []
    strangers = [line for line in rendered.proxied if _host(line) not in BROWSER_OWN_HOSTS]
    assert strangers == ["GET http://canary.invalid/x.png HTTP/1.1"]  # the canary's, only


def test_the_checks_see_a_request_and_a_console_error(rendered: Rendered) -> None:
    page = rendered.pages["canary"]
    assert page.requests == [page.url, "http://canary.invalid/x.png"]
    assert any("canary" in line for line in page.console)
    assert any("canary" in line for line in rendered.stderr_console)


def test_a_hostile_bundle_executes_nothing(rendered: Rendered) -> None:
    page = rendered.pages["hostile"]
    assert PWNED not in page.title
    assert page.title.startswith("bundler analyze: BLOCKED")
    assert SCRIPT in page.text  # the payload is shown, as text
    assert "<script" not in page.dom.split("</head>", 1)[1]
    assert "<img" not in page.dom
    assert "javascript:" not in "".join(
        part.split('"', 1)[0] for part in page.dom.split('href="')[1:]
    )
    assert page.requests == [page.url]
    assert page.console == []


def test_the_diff_page_reads_the_same_way(rendered: Rendered) -> None:
    page = rendered.pages["diff"]
    assert page.title.startswith("bundler diff: REGRESSED")
    assert "Recovery acceptance (on AFTER)" in page.text
    assert "FLUX_WORKER_EVICTED" in page.text
    assert page.requests == [page.url]
    assert page.console == []
    assert page.broken_words == []
    assert colour_variety(page.png)[0] >= 12


def test_dump_dom_of_the_hostile_page_keeps_its_title(rendered: Rendered) -> None:
    """The plain ``chromium --headless --dump-dom`` a support engineer could run, too."""
    recorder = ConnectionRecorder()
    try:
        dom, stderr = dump_dom(_chromium(), file_url(rendered.html["hostile"]), recorder.port)
    finally:
        recorder.close()
    title = dom.split("<title>", 1)[1].split("</title>", 1)[0]
    assert title.startswith("bundler analyze: BLOCKED")
    assert PWNED not in title
    assert "&lt;script&gt;document.title=" in dom
    assert not [line for line in stderr.splitlines() if ":CONSOLE" in line]
    assert [line for line in recorder.seen if _host(line) not in BROWSER_OWN_HOSTS] == []
