"""bundler redact: a tree into a redacted directory or a bundle; symlinks and binaries handled."""

from __future__ import annotations

import gzip
import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from bundler.archive import open_bundle
from bundler.cli import cli
from bundler.cli.options import OpenSecrets
from bundler.redaction.config import RedactConfig
from bundler.redaction.handoff import new_key
from bundler.redaction.outputs import redact_to_directory


def _cli(*args: str, env: dict[str, str] | None = None) -> tuple[int, str]:
    result = CliRunner().invoke(cli, list(args), env=env)
    return result.exit_code, result.stderr


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    src = tmp_path / "src"
    (src / "logs").mkdir(parents=True)
    (src / "app.conf").write_text("db_password=Tree-Pw-1\nowner=alice@corp.example.com\n")
    (src / "logs" / "app.log").write_text(
        "connect with Tree-Pw-1 ok\nGET /x?password=Tree-Pw-2 200\n" * 200
    )
    (src / "logs" / "old.log.gz").write_bytes(gzip.compress(b"rotated token=Tree-Tok-3\n", mtime=0))
    (src / "flux.db").write_bytes(b"SQLite format 3\0" + b"\0" * 64 + b"session_token=Tree-Db-4")
    (src / "alice@corp.example.com.txt").write_text("named after a person\n")
    os.symlink("/etc/shadow", src / "shadow")
    os.symlink("app.conf", src / "inner-link")
    return src


def _all_bytes(root: Path) -> bytes:
    return b"".join(p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file())


def test_redact_a_tree_to_a_directory(tree: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    code, err = _cli("redact", str(tree), "--out", str(out), "--report", str(tmp_path / "r.json"))
    assert code == 0, err
    data = _all_bytes(out)
    for secret in (b"Tree-Pw-1", b"Tree-Pw-2", b"alice@corp.example.com", b"Tree-Db-4"):
        assert secret not in data
    assert b"Tree-Tok-3" not in gzip.decompress((out / "logs" / "old.log.gz").read_bytes())
    assert not (out / "flux.db").exists()
    assert not (out / "shadow").exists()
    names = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
    assert not any("alice" in n for n in names)
    report = json.loads((out / "redaction-report.json").read_text())
    assert report == json.loads((tmp_path / "r.json").read_text())
    skipped = {s["member"]: (s["reason"], s["detail"]) for s in report["skipped"]}
    assert skipped["flux.db"][0] == "binary"
    assert skipped["shadow"] == (
        "symlink",
        "symbolic link pointing outside the source tree (not followed)",
    )
    assert skipped["inner-link"][0] == "symlink"
    assert "Tree-Pw" not in json.dumps(report)
    code, _ = _cli("review", str(out))
    assert code == 0
    assert [p.name for p in tmp_path.iterdir() if "tmp-bundler" in p.name] == []


def test_keep_binary_keeps_and_reports(tree: Path, tmp_path: Path) -> None:
    code, err = _cli("redact", str(tree), "--out", str(tmp_path / "out"), "--keep-binary")
    assert code == 0, err
    assert (tmp_path / "out" / "flux.db").read_bytes() == (tree / "flux.db").read_bytes()
    report = json.loads((tmp_path / "out" / "redaction-report.json").read_text())
    assert [s["kept"] for s in report["skipped"] if s["member"] == "flux.db"] == [True]


def test_a_pool_of_workers_gives_the_same_output_as_one_process(tree: Path, tmp_path: Path) -> None:
    big = tree / "logs" / "big.log"
    big.write_text(
        "Nov 29 12:00:01 h app[1]: db_password=Pool-Pw-5 sent to bob@example.org\n" * 40000
    )
    key = os.urandom(32)
    one = redact_to_directory(
        tree, tmp_path / "one", RedactConfig(key=key, handoff_key=new_key()), workers=1
    )
    two = redact_to_directory(
        tree, tmp_path / "two", RedactConfig(key=key, handoff_key=new_key()), workers=2
    )
    assert _all_bytes(tmp_path / "one") == _all_bytes(tmp_path / "two")
    assert one.report.by_kind == two.report.by_kind
    assert b"Pool-Pw-5" not in _all_bytes(tmp_path / "two")


def test_symlinks_are_never_followed_even_to_directories(tmp_path: Path) -> None:
    """redaction.md §5 case 69."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("password=Outside-Pw-69\n")
    src = tmp_path / "src"
    src.mkdir()
    (src / "ok.txt").write_text("fine\n")
    os.symlink(outside, src / "linked-dir")
    os.symlink(outside / "secret.txt", src / "linked-file")
    code, err = _cli("redact", str(src), "--out", str(tmp_path / "out"))
    assert code == 0, err
    assert b"Outside-Pw-69" not in _all_bytes(tmp_path / "out")
    assert b"Outside" not in _all_bytes(tmp_path / "out")
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [
        "ok.txt",
        "redaction-report.json",
    ]


def test_a_single_file(tmp_path: Path) -> None:
    src = tmp_path / "one.log"
    src.write_text("token: ghp_" + "a1B2" * 9 + "\n")
    code, err = _cli("redact", str(src), "--out", str(tmp_path / "out"))
    assert code == 0, err
    assert b"ghp_" not in (tmp_path / "out" / "one.log").read_bytes()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--out", "{tmp}/src/inside"], "must not be inside SRC"),
        (["--out", "{tmp}/taken"], "already exists"),
        (["--out", "{tmp}/o", "--rules", "{tmp}/bad.yaml"], "rule file"),
        (
            ["--out", "{tmp}/o", "--generate-password"],
            "sealing options apply to a .zip output only",
        ),
    ],
)
def test_usage_errors_are_one_line_and_exit_2(
    tmp_path: Path, args: list[str], message: str
) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.txt").write_text("x\n")
    (tmp_path / "taken").mkdir()
    (tmp_path / "taken" / "f").write_text("x")
    (tmp_path / "bad.yaml").write_text("rules:\n  - id: x\n    regex: '('\n")
    code, err = _cli("redact", str(tmp_path / "src"), *[a.format(tmp=tmp_path) for a in args])
    assert code == 2
    lines = [line for line in err.splitlines() if line.startswith("bundler: error:")]
    assert len(lines) == 1
    assert message in lines[0]
    assert not (tmp_path / "o").exists()


def test_obfuscate_network_and_keywords_on_the_command_line(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "a.log").write_text("Nov 29 12:00:01 db01 app[1]: peer 10.9.8.7 tenant AcmeProd\n")
    code, err = _cli(
        "redact",
        str(src),
        "--out",
        str(tmp_path / "out"),
        "--obfuscate",
        "network",
        "--keyword",
        "acmeprod",
    )
    assert code == 0, err
    text = (tmp_path / "out" / "a.log").read_text()
    assert "10.9.8.7" not in text
    assert "db01" not in text
    assert "AcmeProd" not in text
    report = json.loads((tmp_path / "out" / "redaction-report.json").read_text())
    assert report["obfuscate_network"] is True
    assert report["keywords"] == 1


def test_redact_into_an_encrypted_bundle(tree: Path, tmp_path: Path) -> None:
    bundle = tmp_path / "support.zip"
    env = {"BPW": "a long enough bundle password"}
    code, err = _cli("redact", str(tree), "--out", str(bundle), "--password-env", "BPW", env=env)
    assert code == 0, err
    raw = bundle.read_bytes()
    assert b"Tree-Pw-1" not in raw
    with open_bundle(bundle, _secrets("BPW"), environ=env) as reader:
        names = reader.names()
        assert "manifest.json" in names
        assert "redaction-report.json" in names
        assert b"Tree-Pw-1" not in reader.read_bytes("app.conf")
    code, _ = _cli("review", str(bundle), "--password-env", "BPW", env=env)
    assert code == 0


def test_a_file_name_no_bundle_member_can_have_is_left_out_and_reported(tmp_path: Path) -> None:
    """``a\\b.log`` (a backspace) ended the run as an internal error when sealing, after the
    generated password was printed; a directory output keeps such names."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "ok.log").write_text("password=Name-Pw-1\n")
    odd = {"a\b.log": "control character", "n\nl.log": "control character"}
    odd |= {"e\x1b[31m.log": "control character", "back\\slash.log": "backslash"}
    for name in odd:
        (src / name).write_text("hi\n")
    (src / os.fsdecode(b"\xff.log")).write_text("hi\n")
    bundle = tmp_path / "red.zip"
    result = CliRunner().invoke(
        cli, ["redact", str(src), "--out", str(bundle), "--generate-password"]
    )
    assert result.exit_code == 0, result.stderr
    password = result.stderr.split("stored nowhere): ")[1].split()[0]
    assert "1 file," in result.stderr
    assert "5 skipped" in result.stderr
    env = {"BPW": password}
    with open_bundle(bundle, _secrets("BPW"), environ=env) as reader:
        assert [n for n in reader.names() if n.endswith(".log")] == ["ok.log"]
        report = json.loads(reader.read_bytes("redaction-report.json"))
    skipped = {s["member"]: (s["reason"], s["detail"]) for s in report["skipped"]}
    assert skipped["a\\x08.log"] == (
        "policy",
        "control character in name: a bundle member cannot be named so (left out)",
    )
    assert skipped["n\\x0al.log"][1].startswith("control character in name")
    assert skipped["e\\x1b[31m.log"][1].startswith("control character in name")
    assert skipped["back\\slash.log"][1].startswith("backslash in name")
    assert skipped["\\udcff.log"][1].startswith("name is not UTF-8")
    code, _ = _cli("verify", str(bundle), "--password-env", "BPW", env=env)
    assert code == 0


def _secrets(env: str) -> OpenSecrets:
    return OpenSecrets(password_env=env)


def test_a_file_that_compresses_past_the_readers_limit_is_stored_uncompressed(
    tmp_path: Path,
) -> None:
    """17 MiB of one repeated line deflates past 200:1, which bundler's readers refuse for a
    member over 16 MiB (a zip bomb's shape). ``bundler redact`` into a bundle failed on it
    (exit 2, nothing written: redaction must never destroy evidence); the member is now
    stored uncompressed, still encrypted, every byte kept, and one line says so."""
    src = tmp_path / "src"
    src.mkdir()
    looping = (b"ERROR connect: connection refused" + b" " * 990 + b"\n") * (17 * 1024)
    (src / "spam.log").write_bytes(looping)
    (src / "app.conf").write_text("db_password=Spam-Pw-1\n")
    bundle = tmp_path / "out" / "support.zip"
    bundle.parent.mkdir()
    env = {"BPW": "a long enough bundle password"}
    code, err = _cli("redact", str(src), "--out", str(bundle), "--password-env", "BPW", env=env)
    assert code == 0, err
    assert err.splitlines()[1:] == [
        "bundler: stored uncompressed, every byte kept: spam.log (it compresses past the "
        "200:1 bundler's readers accept for a member over 16 MiB)"
    ]
    code, err = _cli("verify", str(bundle), "--password-env", "BPW", env=env)
    assert code == 0, err
    out = tmp_path / "x"
    code, err = _cli("extract", str(bundle), "--to", str(out), "--password-env", "BPW", env=env)
    assert code == 0, err
    assert (out / "spam.log").read_bytes() == looping
    assert "Spam-Pw-1" not in (out / "app.conf").read_text()


def test_a_tree_with_more_files_than_a_bundle_can_hold_is_refused_before_any_is_read(
    tree: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The check before publishing refused such a bundle too, but after every file was
    redacted; now the run stops first, says why and what to do, and writes nothing."""
    from bundler.archive.integrity import written
    from bundler.archive.limits import ReaderLimits

    monkeypatch.setattr(written, "READER_LIMITS", ReaderLimits(max_members=4))
    bundle = tmp_path / "support.zip"
    env = {"BPW": "a long enough bundle password"}
    code, err = _cli("redact", str(tree), "--out", str(bundle), "--password-env", "BPW", env=env)
    assert code == 2, err
    assert "files would make a bundle of more members than bundler's readers open" in err
    assert "pass one" not in err
    assert not bundle.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["src"]
    code, err = _cli("redact", str(tree), "--out", str(tmp_path / "out"))
    assert code == 0, err  # a directory has no such limit
