"""bundler review: the independent pass finds what redaction missed, and nothing in clean output."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from bundler.cli import cli
from bundler.source import MemorySource
from redactors.review import review_source
from tests.support.redaction import pass_one, reviews_clean, run

from .corpus import CASES


def test_redacted_corpus_output_reviews_clean() -> None:
    """Every case of the corpus, redacted, passes the independent review."""
    for case in CASES:
        outputs, redactor, _ = run(case.files)
        members = {
            **outputs,
            "redaction-report.json": redactor.report().model_dump_json(by_alias=True),
        }
        result = review_source(MemorySource(members), report=redactor.report())
        assert result.findings == [], (case.id, result.findings[:3])
        assert result.report_consistent is True


def test_raw_secrets_are_found_with_masked_previews() -> None:
    raw = {
        "a.log": "password=hunter2-Raw\ntoken is 9f8ZqA7bC6dE5fG4hI3jK2lM1nO0pQ\n",
        "ghp_" + "a1" * 18 + ".txt": "x",
    }
    result = review_source(MemorySource(raw))
    assert not result.clean
    checks = {(f.member, f.check) for f in result.findings}
    assert ("a.log", "detector") in checks
    assert ("a.log", "entropy") in checks
    assert any(f.check == "member-name" for f in result.findings)
    dumped = result.model_dump_json()
    assert "hunter2-Raw" not in dumped
    assert "9f8ZqA7bC6dE5fG4hI3jK2lM1nO0pQ" not in dumped
    assert "a1a1a1" not in dumped


def test_token_adjacent_residue_is_reported() -> None:
    result = review_source(MemorySource({"a.log": "key=[REDACTED:api-key:0a1b2c3d]Xy9Q tail\n"}))
    assert [f.check for f in result.findings] == ["encoded-literal"]


def test_known_values_are_searched_in_every_encoding() -> None:
    members = {"a.log": "GET /?q=Kn0wn%2FValue%21 and S24wd24vVmFsdWUh\n"}
    result = review_source(MemorySource(members), originals=[b"Kn0wn/Value!"])
    assert sum(f.kind == "known-value" for f in result.findings) == 2


def test_a_report_that_does_not_match_the_members_is_not_clean() -> None:
    outputs, redactor, _ = run({"a.log": "password=hunter2-x\n"})
    outputs["a.log"] += b"appended later\n"
    result = review_source(MemorySource(outputs), report=redactor.report())
    assert result.report_consistent is False
    assert not result.clean


def _cli(*args: str, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args), env=env)
    return result.exit_code, result.stdout, result.stderr


def test_cli_review_exit_codes_and_json(tmp_path: Path) -> None:
    dirty = tmp_path / "dirty"
    dirty.mkdir()
    (dirty / "a.log").write_text("password=hunter2-cli\n")
    clean = tmp_path / "clean"
    code, _, err = _cli("redact", str(dirty), "--out", str(clean))
    assert code == 0, err
    code, out, _ = _cli("review", str(clean), "--json")
    assert code == 0
    assert json.loads(out)["clean"] is True
    code, out, _ = _cli("review", str(dirty))
    assert code == 1
    assert "a.log:1\tpassword\tdetector" in out
    assert "hunter2-cli" not in out
    code, _, err = _cli("review", str(tmp_path / "missing"))
    assert code == 2


def test_cli_review_with_the_reversible_map(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "a.conf").write_text("db_password=Mapped-Secret-1\n")
    env = {"MAPPW": "correct horse battery staple"}
    out, mapfile = str(tmp_path / "out"), str(tmp_path / "m.map")
    code, _, err = _cli(
        "redact",
        str(src),
        "--out",
        out,
        "--map-out",
        mapfile,
        "--map-password-env",
        "MAPPW",
        env=env,
    )
    assert code == 0, err
    assert b"Mapped-Secret-1" not in (tmp_path / "m.map").read_bytes()
    with_map = ("--map", mapfile, "--map-password-env", "MAPPW")
    code, _, _ = _cli("review", out, *with_map, env=env)
    assert code == 0
    (tmp_path / "out" / "leak.txt").write_text("copied: Mapped-Secret-1\n")
    code, printed, _ = _cli("review", out, *with_map, env=env)
    assert code == 1
    assert "known-value" in printed
    wrong = ("--map", mapfile, "--map-password-env", "WRONG")
    code, _, err = _cli("review", out, *wrong, env={"WRONG": "not the password at all"})
    assert code == 2
    assert "cannot decrypt map file" in err


def test_cookie_attributes_after_a_redacted_value_are_clean() -> None:
    """The token's own kind ('cookie:') is not a Cookie header: its attributes are no values."""
    token = "[REDACTED:cookie:0a1b2c3d]"
    lines = [
        f"set-cookie: flux_session={token}; Path=/; HttpOnly; Secure; SameSite=Lax\n",
        f'  "Set-Cookie": "flux_session={token}; Path=/; HttpOnly; Secure; SameSite=Lax"\n',
        f"Cookie: a={token}; b={token}\n",
    ]
    for line in lines:
        result = review_source(MemorySource({"capture.log": line}))
        assert result.findings == [], (line, result.findings)


def test_a_real_cookie_next_to_a_token_is_still_found() -> None:
    token = "[REDACTED:cookie:0a1b2c3d]"
    for line in (
        f"Cookie: a={token}; b=Sess10nValue-Leaked-42\n",
        f"Set-Cookie: sid=Sess10nValue-Leaked-42; Path=/\nnote {token}\n",
    ):
        result = review_source(MemorySource({"capture.log": line}))
        assert [f.kind for f in result.findings] == ["cookie"], line


def test_a_report_mismatch_names_the_member(tmp_path: Path) -> None:
    outputs, redactor, _ = run({"a.log": "password=hunter2-x\n", "b.log": "fine\n"})
    outputs["a.log"] += b"appended later\n"
    result = review_source(MemorySource(outputs), report=redactor.report())
    stored = next(name for name in outputs if name.startswith("a"))
    assert result.report_mismatches == [f"{stored}: differs from the redaction report's checksum"]
    folder = tmp_path / "out"
    for name, data in {
        **outputs,
        "redaction-report.json": redactor.report().model_dump_json(by_alias=True).encode(),
    }.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(data)
    code, out, err = _cli("review", str(folder))
    assert code == 1
    assert f"{stored}: differs from the redaction report's checksum\treport-mismatch" in out
    assert f"does not match the members ({stored}: differs" in err


def test_a_report_that_does_not_read_as_one_is_not_clean(tmp_path: Path) -> None:
    """A folder's report that does not validate was taken as "no report": clean, exit 0,
    though none of its checksums could be compared with the members."""
    outputs, _, _ = run({"a.log": "fine\n"})
    for name, data in {**outputs, "redaction-report.json": b'{"files": 3}'}.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(data)
    code, out, err = _cli("review", str(tmp_path))
    assert code == 1
    assert "redaction-report.json: not a redaction report bundler can read\treport-mismatch" in out
    assert "0 residual findings; the redaction report does not match the members" in err
    (tmp_path / "redaction-report.json").unlink()
    assert _cli("review", str(tmp_path))[0] == 0  # no report at all: nothing to compare


def test_what_review_cannot_see_into_is_rejected_not_clean(tmp_path: Path) -> None:
    """A nested zip or a bz2/xz/zstd stream hides its plaintext from every detector."""
    import bz2
    import io
    import lzma
    import tarfile
    import zipfile

    secret = b"aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYzQ9ab3cd7X\n"
    nested = io.BytesIO()
    with zipfile.ZipFile(nested, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("inner.txt", secret * 3)
    opaque = {
        "nested.zip": nested.getvalue(),
        "log.xz": lzma.compress(b"ordinary line\n" * 50 + secret),
        "log.bz2": bz2.compress(b"ordinary line\n" * 50 + secret),
    }
    for name, data in opaque.items():
        folder = tmp_path / name.replace(".", "-")
        folder.mkdir()
        (folder / name).write_bytes(data)
        for target in (folder, folder / name):
            code, out, err = _cli("review", str(target))
            assert code == 2, (name, out, err)
            assert "clean" not in err
            if target == folder or not name.endswith(".zip"):  # a .zip alone is read as a bundle
                assert f"member '{name}' is archived or compressed" in err
    tarred = io.BytesIO()
    with tarfile.open(fileobj=tarred, mode="w") as tar:
        info = tarfile.TarInfo("inner.txt")
        info.size = len(secret)
        tar.addfile(info, io.BytesIO(secret))
    (tmp_path / "plain.tar").write_bytes(tarred.getvalue())
    code, out, _ = _cli("review", str(tmp_path / "plain.tar"))
    assert code == 1  # a tar is plain bytes: its contents are scanned, and the key is found
    assert "secret\tdetector" in out


PLACEHOLDER_LINES = [
    "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n",
    'client_secret = "je7MtGbClwBF/2Zp9Utk/h3yCo8nvbEXAMPLEKEY"\n',
    "export GITHUB_TOKEN=dummy-token-value-123456789\n",
    "the secret is wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY here\n",
]


def test_a_placeholder_the_redactor_keeps_is_not_a_residual_secret() -> None:
    """Documented examples and self-declared fakes are kept on purpose (docs/redaction.md):
    review's entropy check must not fail the bundle on them."""
    for line in PLACEHOLDER_LINES:
        outputs, _, _ = run({"a.env": line})
        assert outputs["a.env"] == line.encode(), line  # kept, as documented
        assert review_source(MemorySource(outputs)).findings == [], line


def test_the_same_shape_without_the_example_marker_is_still_found() -> None:
    raw = "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYzQ7pR2kW\n"
    result = review_source(MemorySource({"a.env": raw}))
    assert "entropy" in {f.check for f in result.findings}
    outputs, _, _ = run({"a.env": raw})
    assert b"wJalrXUtnFEMI" not in outputs["a.env"]
    assert review_source(MemorySource(outputs)).findings == []


SECRET_STREAM = (
    "apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\ndata:\n"
    "  conn: cG9zdGdyZXM6Ly9hcHA6WnE4clQ1dldAZGI=\n  user: YXBwLXVzZXI=\n"
    "---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: tls\nstringData:\n"
    "  note: Zq8rT5vW-Kx9w-Lm2p\n"
)


def test_a_secrets_data_left_in_place_is_found_by_the_structure_walk() -> None:
    """The line rules cannot tell ``conn: cG9z...`` is a secret; a review that only ran
    them called a bundle with a whole unredacted Secret list clean."""
    for text in (SECRET_STREAM, SECRET_STREAM + "---\nbroken: [unclosed\n"):
        result = review_source(MemorySource({"k8s/secrets.yaml": text}))
        found = {(f.line, f.kind, f.check) for f in result.findings}
        assert {(6, "k8s-secret", "detector"), (7, "k8s-secret", "detector")} <= found
        assert (14, "k8s-secret", "detector") in found
        assert "cG9zdGdyZXM6" not in result.model_dump_json()


def test_the_redacted_secret_stream_reviews_clean() -> None:
    outputs, _, _ = run({"k8s/secrets.yaml": SECRET_STREAM})
    assert b"cG9zdGdyZXM6" not in outputs["k8s/secrets.yaml"]
    assert review_source(MemorySource(outputs)).findings == []


def test_a_public_certificate_in_a_secret_block_scalar_is_not_a_finding() -> None:
    """What the redactor keeps (a certificate's indented lines, which the walk's value
    does not match as written) review keeps too."""
    cert = "".join(f"    {'Q' * 60}{i}\n" for i in range(4))
    text = (
        "kind: Secret\nstringData:\n  tls.crt: |\n    -----BEGIN CERTIFICATE-----\n"
        f"{cert}    -----END CERTIFICATE-----\n"
    )
    outputs, _, _ = run({"tls.yaml": text})
    assert outputs["tls.yaml"] == text.encode()
    assert review_source(MemorySource(outputs)).findings == []


def test_a_directory_with_an_entry_review_did_not_read_is_rejected(tmp_path: Path) -> None:
    """``zip -r`` and ``tar -h`` follow links: a link to a secret file left the upload
    carrying it while review, which reads regular files only, called the folder clean."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "creds.txt").write_text("password=hunter2-Outside-9\n")
    for kind in ("file link", "folder link", "fifo"):
        folder = tmp_path / kind.replace(" ", "-")
        folder.mkdir()
        (folder / "a.log").write_text("all good\n")
        entry = folder / "entry"
        if kind == "file link":
            entry.symlink_to(outside / "creds.txt")
        elif kind == "folder link":
            entry.symlink_to(outside)
        else:
            os.mkfifo(entry)
        code, out, err = _cli("review", str(folder))
        assert code == 2, (kind, out, err)
        assert "unreadable: rejected: 'entry' is" in err
        assert "clean" not in out
        entry.unlink()
        assert _cli("review", str(folder))[0] == 0


_SECRET_FILES = {
    "hosts/h01/files/.flux/bootstrap-token": b"9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822c\n",
    "hosts/h01/files/.flux/admin-bootstrap-key": b"flux-admin-7Hq2xLm\n",
    "etc/join-token": b"a1b2c3d4e5f6\n",
    "home/app/.pgpass": b"# db\ndb:5432:flux:flux:Xq7rT5vWmK29pLz4\n",
    "etc/pgpass.conf": b"*:*:*:postgres:hunter2\n",
}


@pytest.mark.parametrize("name", list(_SECRET_FILES))
def test_a_secret_file_left_in_clear_is_residue(name: str) -> None:
    """A file whose name says it is a secret holds a value no rule recognizes by its text (a
    bare 48-digit hex token looks like a digest): review read it by the rules alone and
    called it clean. It reads it as the redactor does, and the redacted file is clean."""
    data = _SECRET_FILES[name]
    raw = review_source(MemorySource({name: data}))
    assert not raw.clean
    assert {f.check for f in raw.findings} == {"detector"}
    redacted = pass_one(name, data)
    assert b"[REDACTED:" in redacted
    assert reviews_clean(name, redacted)


def test_cli_review_rejects_a_directory_with_a_bootstrap_token(tmp_path: Path) -> None:
    token = tmp_path / "bundle" / "files" / ".flux" / "bootstrap-token"
    token.parent.mkdir(parents=True)
    token.write_bytes(_SECRET_FILES["hosts/h01/files/.flux/bootstrap-token"])
    result = CliRunner().invoke(cli, ["review", str(tmp_path / "bundle")])
    assert result.exit_code == 1, result.output
    assert "9f86d081884c" not in result.output


@pytest.mark.parametrize(
    ("name", "text"),
    [
        (".pgpass", "db.example.com:5432:etl:bob@corp.example.com:Qm7rT5vWxK29pLz4\n"),
        ("conf/a.xml", '<password>"correct horse" Qm7rT5vWxK29pLz4</password>\n'),
        ("conf/b.xml", '<password>"Qm7rT5vWxK29pLz4"</password>\n'),
        ("conf/c.xml", '<password>"Qm7rT5vWxK29pLz4</password>\n'),
        ("logs/redis.log", "127.0.0.1:6379> AUTH ::add-mask::Qm7rT5vWxK29pLz4\n"),
        ("exports/users.csv", "id,user,password\n1,bob@corp.example.com,Qm7rT5vWxK29pLz4\n"),
    ],
    ids=["pgpass e-mail user", "quoted then more", "quoted", "unclosed quote", "two rules", "csv"],
)
def test_what_redact_writes_review_passes(name: str, text: str) -> None:
    """Redacted output is a fixed point of the checks review runs: a token's colons are no
    ``.pgpass`` fields (the e-mail rule's token in the user field moved review's password
    field), a quoted element text with more after it is replaced with its quotes, and a
    line another rule shortened is no redis-cli AUTH of one word."""
    data = pass_one(name, text.encode())
    assert b"Qm7rT5vWxK29pLz4" not in data
    if b"<password>" in data:  # the element's tags are evidence: both stay
        assert data.rstrip().endswith(b"</password>")
    result = review_source(MemorySource({name: data}))
    assert result.clean, result.findings
