"""Bundle text is hostile: no format lets it act on the reader's terminal, ticket or browser.

Worker names, labels, versions and the bundle id come from a customer's
systems. Through the real CLI (a bundle directory written with the test
helpers), each renderer must show them as characters: rich markup is not
interpreted (``[/]`` once crashed ``analyze`` with exit 70), ESC, C1 and
carriage returns cannot redraw the verdict, bidi overrides cannot reverse a
status word, and Markdown cannot become a heading, a link or bold text.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from bundler.cli import cli
from bundler.printable import printable, printable_model
from schemas import Finding
from schemas.evidence import ConnectionState
from tests.support.archive import PASSWORD, craft_bundle, manifest_for
from tests.support.evidence import Fleet, healthy_fleet, worker, write_bundle_dir

MARKUP = "[bold green]HEALTHY[/] [/] [link=http://evil.example]x[/link]"
ESCAPES = "\x1b[1A\x1b[2K\x1b]8;;http://evil.example\x1b\\\x9b31m\rHEALTHY"
BIDI = "w1\u202eYHTLAEH\u200b"
MARKDOWN = "**HEALTHY** [x](http://evil.example) <img src=x> `` ` ``"
RAW = ("\x1b", "\x9b", "\r", "\u202e", "\u200b")


def _hostile_bundle(tmp_path: Path, payload: str) -> Path:
    fleet: Fleet = healthy_fleet()
    assert fleet.workers is not None
    assert fleet.server is not None
    fleet.workers.workers.append(
        worker(
            f"w3{payload}",
            native_status=f"offline {payload}",
            connection=ConnectionState.OFFLINE,
            labels={"zone": payload},
        )
    )
    fleet.server.version = f"1.0{payload}"
    return write_bundle_dir(fleet, tmp_path / "bundle")


def _run(*argv: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, list(argv), env={"BUNDLER_DEBUG": ""})
    return result.exit_code, result.stdout + result.stderr


@pytest.mark.parametrize("payload", [MARKUP, ESCAPES, BIDI], ids=["markup", "escapes", "bidi"])
@pytest.mark.parametrize("fmt", ["text", "markdown", "html"])
def test_analyze_shows_hostile_names_as_characters(tmp_path: Path, payload: str, fmt: str) -> None:
    bundle = _hostile_bundle(tmp_path, payload)
    code, out = _run("analyze", str(bundle), "--format", fmt)
    assert code in (0, 1, 3), out  # a verdict, whichever: never 70 (internal) or 2
    assert not any(ch in out for ch in RAW), repr(out[:400])
    if payload is MARKUP and fmt == "text":
        assert "[bold green]HEALTHY[/]" in out  # shown, not interpreted
    if payload is BIDI:
        assert "\\u202e" in out


def test_diff_text_shows_hostile_names_as_characters(tmp_path: Path) -> None:
    before = _hostile_bundle(tmp_path / "a", ESCAPES)
    after = _hostile_bundle(tmp_path / "b", ESCAPES)
    for fmt in ("text", "markdown"):
        _code, out = _run("diff", str(before), str(after), "--format", fmt)
        assert not any(ch in out for ch in RAW), repr(out[:400])
        assert "\\x1b" in out


def test_markdown_cannot_turn_a_name_into_a_link_bold_or_a_heading(tmp_path: Path) -> None:
    bundle = _hostile_bundle(tmp_path, MARKDOWN + "\n# HEALTHY")
    code, out = _run("analyze", str(bundle), "--format", "markdown")
    assert code in (0, 1, 3), out
    # Each piece of syntax is there only escaped (a backslash before it renders it as itself).
    assert "\\*\\*HEALTHY\\*\\*" in out
    assert re.search(r"(?<!\\)\*\*HEALTHY", out) is None
    assert re.search(r"(?<!\\)\]\(http", out) is None
    assert re.search(r"(?<!\\)<img", out) is None
    assert "\n# HEALTHY" not in out


def test_printable_escapes_what_a_terminal_or_renderer_acts_on() -> None:
    assert printable("plain w1 [/] zone=a") == "plain w1 [/] zone=a"
    assert printable("a\x1b[2Jb\x9b\r\n") == "a\\x1b[2Jb\\x9b\\x0d\\x0a"
    assert printable("w1\u202e\u200b\u2028\ud800") == "w1\\u202e\\u200b\\u2028\\ud800"
    assert printable("ワーカー1 é") == "ワーカー1 é"  # letters of any script are shown
    assert printable("a\nb\x1b", keep="\n") == "a\nb\\x1b"


def test_printable_model_reaches_nested_values_and_keys_and_keeps_enums() -> None:
    finding = Finding(code="X", severity="warn", message="w\x1b1", details={"k\x1b": ["v\x9b"]})
    shown = printable_model(finding)
    assert shown.message == "w\\x1b1"
    assert shown.details == {"k\\x1b": ["v\\x9b"]}
    assert shown.severity == "warn"
    assert finding.message == "w\x1b1"  # the original is untouched (JSON output keeps it)


@pytest.mark.parametrize("reader", ["inspect", "verify"])
def test_inspect_and_verify_show_a_hostile_manifest_as_characters(
    tmp_path: Path, reader: str
) -> None:
    """A media type of ``[/]`` once crashed ``inspect``; the bundle id could redraw lines."""
    members = {"logs/a.log": b"x\n"}
    document = json.loads(manifest_for(members, bundle_id=f"b{ESCAPES}"))
    document["members"][0]["media_type"] = MARKUP
    path = craft_bundle(tmp_path / "b.zip", members, manifest=json.dumps(document).encode())
    result = CliRunner().invoke(
        cli, [reader, str(path), "--password-env", "PW"], env={"PW": PASSWORD, "BUNDLER_DEBUG": ""}
    )
    out = result.stdout + result.stderr
    assert result.exit_code == 0, out
    assert not any(ch in out for ch in RAW), repr(out)
    if reader == "inspect":
        assert "[bold green]HEALTHY[/]" in out
        assert "\\x1b" in out


C1_BIDI = "w\x9b31m\u202eYHTLAEH\u2066\u200b\x7f"
"""What JSON serializers leave raw: a C1 CSI, bidi override and isolate, zero-width, DEL."""
JSON_RAW = ("\x9b", "\u202e", "\u2066", "\u200b", "\x7f")


def _assert_json_printable(out: str, value: str) -> None:
    assert not any(ch in out for ch in JSON_RAW), repr(out[:400])
    assert value in json.dumps(json.loads(out))  # read back: the value is exact


@pytest.mark.parametrize("argv", [["analyze", "--format", "json"], ["diff", "--format", "json"]])
def test_json_reports_write_terminal_controls_as_json_escapes(
    tmp_path: Path, argv: list[str]
) -> None:
    """``--format json`` is read on terminals too: a bidi override goes out as ``\\u202e``."""
    bundle = _hostile_bundle(tmp_path / "before", C1_BIDI)
    paths = [str(bundle)]
    if argv[0] == "diff":  # against another collection: one bundle twice is refused
        paths.append(str(_hostile_bundle(tmp_path / "after", C1_BIDI)))
    result = CliRunner().invoke(cli, [argv[0], *paths, *argv[1:]], env={"BUNDLER_DEBUG": ""})
    assert result.exit_code in (0, 1, 3), result.output
    _assert_json_printable(result.stdout, json.dumps(C1_BIDI)[1:-1])


@pytest.mark.parametrize("reader", ["inspect", "verify"])
def test_inspect_and_verify_json_write_terminal_controls_as_json_escapes(
    tmp_path: Path, reader: str
) -> None:
    members = {"logs/a.log": b"x\n"}
    manifest = manifest_for(members, bundle_id=C1_BIDI)
    path = craft_bundle(tmp_path / "b.zip", members, manifest=manifest)
    result = CliRunner().invoke(
        cli,
        [reader, str(path), "--password-env", "PW", "--json"],
        env={"PW": PASSWORD, "BUNDLER_DEBUG": ""},
    )
    assert result.exit_code == 0, result.output
    if reader == "inspect":
        _assert_json_printable(result.stdout, json.dumps(C1_BIDI)[1:-1])
    else:
        assert not any(ch in result.stdout for ch in JSON_RAW)


def test_review_json_writes_a_hostile_file_name_as_json_escapes(tmp_path: Path) -> None:
    folder = tmp_path / "reviewed"
    folder.mkdir()
    (folder / f"a{C1_BIDI[1:]}.txt").write_text("password=hunter2hunter2\n")
    result = CliRunner().invoke(cli, ["review", str(folder), "--json"], env={"BUNDLER_DEBUG": ""})
    assert result.exit_code == 1, result.output
    _assert_json_printable(result.stdout, "\\u202e")


def test_json_printable_escapes_only_what_a_terminal_acts_on() -> None:
    from bundler.printable import json_printable

    assert json_printable('{"a": "w1 ワーカー é"}') == '{"a": "w1 ワーカー é"}'
    assert json_printable('{"a": "\x9b\u202e\x7f\U000e0001"}') == (
        '{"a": "\\u009b\\u202e\\u007f\\udb40\\udc01"}'
    )
    assert json.loads(json_printable('"\u202e\U000e0001"')) == "\u202e\U000e0001"


@pytest.mark.parametrize("fmt", ["text", "markdown", "html"])
def test_a_megabyte_name_is_shown_cut_and_kept_whole_in_json(tmp_path: Path, fmt: str) -> None:
    """A 1 MB worker name once made an 11 MB text report (a 50 MB one never finished)."""
    name = "w" + "ab" * (1 << 19)
    bundle = _hostile_bundle(tmp_path, name)
    code, out = _run("analyze", str(bundle), "--format", fmt)
    assert code in (0, 1, 3), out[-400:]
    assert len(out) < 300_000, len(out)
    # A narrow terminal wraps the note across table lines: read it with the borders taken out.
    unwrapped = re.sub(r"[\s│]+", " ", out)
    assert f"({len(name) + 2 - 2000:,} more characters)" in unwrapped  # SHOWN_LIMIT
    code, out = _run("analyze", str(bundle), "--format", "json")
    assert json.dumps(f"w3{name}") in out


def test_printable_cuts_long_text_before_escaping_it() -> None:
    from bundler.printable import SHOWN_LIMIT

    assert SHOWN_LIMIT == 2000
    assert printable("a" * 10, limit=4) == "aaaa… (6 more characters)"
    assert printable("\x1b" * 10, limit=2) == "\\x1b\\x1b… (8 more characters)"
    assert printable("a" * SHOWN_LIMIT) == "a" * SHOWN_LIMIT
