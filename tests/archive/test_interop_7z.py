"""Interop with the real 7-Zip (p7zip): what support engineers open bundles with."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from bundler.archive import Identity, PublicKey, Sealing, keygen
from bundler.archive.sealing import read_envelope, unseal
from tests.support.archive import PASSWORD, build_bundle, manifest_for, open_test_bundle
from tests.support.requirements import need_executable

MEMBERS = {
    "evidence/workers.json": b'{"workers": [{"name": "w1"}]}',
    "hosts/h01/logs/0.log": b"".join(b"line %06d heartbeat ok\n" % i for i in range(100_000)),
    "hosts/h01/empty.txt": b"",
}


@pytest.fixture
def seven_zip() -> str:
    return need_executable("7z")


def _run(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, capture_output=True, text=True, check=False, timeout=120)


def test_7z_tests_lists_and_extracts_a_bundle(seven_zip: str, tmp_path: Path) -> None:
    bundle = build_bundle(tmp_path / "b.zip", MEMBERS).path
    tested = _run(seven_zip, "t", f"-p{PASSWORD}", str(bundle))
    assert tested.returncode == 0, tested.stdout + tested.stderr
    assert "Everything is Ok" in tested.stdout

    listing = _run(seven_zip, "l", "-slt", str(bundle))
    assert listing.returncode == 0
    paths = [
        ln.split(" = ", 1)[1] for ln in listing.stdout.splitlines() if ln.startswith("Path = ")
    ]
    assert paths[1:] == [*sorted(MEMBERS), "redaction-report.json", "manifest.json"]
    methods = {ln for ln in listing.stdout.splitlines() if ln.startswith("Method = ")}
    assert methods == {"Method = AES-256 Deflate"}
    assert "Modified = 2024-05-01 12:30:10" in listing.stdout

    out = tmp_path / "out"
    extracted = _run(seven_zip, "x", f"-p{PASSWORD}", f"-o{out}", str(bundle))
    assert extracted.returncode == 0, extracted.stdout + extracted.stderr
    for name, data in MEMBERS.items():
        assert (out / name).read_bytes() == data


def test_7z_refuses_a_wrong_password(seven_zip: str, tmp_path: Path) -> None:
    bundle = build_bundle(tmp_path / "b.zip", MEMBERS).path
    tested = _run(seven_zip, "t", "-pwrong-password", str(bundle))
    assert tested.returncode != 0
    assert "Wrong password" in tested.stdout + tested.stderr


def test_7z_opens_a_recipient_bundle_with_the_unwrapped_password(
    seven_zip: str, tmp_path: Path
) -> None:
    _, identity_path, public_path = keygen(tmp_path / "vendor")
    sealing = Sealing.to_recipients((PublicKey.load(public_path),))
    bundle = build_bundle(tmp_path / "b.zip", MEMBERS, sealing=sealing).path
    import pyzipper

    with pyzipper.AESZipFile(bundle) as zf:
        envelope = read_envelope(zf.comment)
    assert envelope is not None
    password = unseal(envelope, Identity.load(identity_path)).reveal().decode()
    tested = _run(seven_zip, "t", f"-p{password}", str(bundle))
    assert tested.returncode == 0, tested.stdout
    listing = _run(seven_zip, "l", str(bundle))
    assert "bundler sealed bundle" in listing.stdout  # the comment tells people what to do


def test_a_zip_made_by_7z_opens_in_bundler(seven_zip: str, tmp_path: Path) -> None:
    """The other direction: an AES zip written by 7-Zip (e.g. repacked by support) reads."""
    source = tmp_path / "src"
    for name, data in {**MEMBERS, "manifest.json": manifest_for(MEMBERS)}.items():
        (source / name).parent.mkdir(parents=True, exist_ok=True)
        (source / name).write_bytes(data)
    bundle = tmp_path / "repacked.zip"
    made = _run(seven_zip, "a", "-tzip", "-mem=AES256", f"-p{PASSWORD}", str(bundle), f"{source}/*")
    assert made.returncode == 0, made.stdout + made.stderr
    with open_test_bundle(bundle, lenient=True) as reader:
        integrity = reader.check()
        # 7-Zip also stores folder entries; they are not members and not problems.
        assert integrity.status == "verified", integrity.problems
        assert reader.read_bytes("hosts/h01/logs/0.log") == MEMBERS["hosts/h01/logs/0.log"]


def test_7z_extracts_a_member_stored_uncompressed_because_it_compresses_too_well(
    seven_zip: str, tmp_path: Path
) -> None:
    """17 MiB of one line deflates past the 200:1 bundler's readers accept over 16 MiB, so
    the writer stores it (AES-256, method 0 under the AES extra field): 7-Zip reads it."""
    looping = (b"ERROR connect: connection refused" + b" " * 990 + b"\n") * (17 * 1024)
    members = {**MEMBERS, "hosts/h01/logs/1.log": looping}
    bundle = build_bundle(tmp_path / "b.zip", members).path
    listing = _run(seven_zip, "l", "-slt", str(bundle))
    assert listing.returncode == 0
    methods = dict(
        zip(
            [ln[7:] for ln in listing.stdout.splitlines() if ln.startswith("Path = ")][1:],
            [ln[9:] for ln in listing.stdout.splitlines() if ln.startswith("Method = ")],
            strict=True,
        )
    )
    assert methods.pop("hosts/h01/logs/1.log") == "AES-256 Store"
    assert set(methods.values()) == {"AES-256 Deflate"}
    out = tmp_path / "out"
    extracted = _run(seven_zip, "x", f"-p{PASSWORD}", f"-o{out}", str(bundle))
    assert extracted.returncode == 0, extracted.stdout + extracted.stderr
    for name, data in members.items():
        assert (out / name).read_bytes() == data
