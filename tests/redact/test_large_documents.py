"""Large JSON, YAML and TOML members: walked in bounded memory, or never passed off as redacted.

Before: above 16 MiB a structured member silently got the line rules alone, in ``bundler
redact`` and ``bundler review`` both. A Kubernetes ``Secret``'s ``data`` (which only the
structure walk recognizes) stayed in clear, the report said nothing, and review called the
member clean (exit 0). Now JSON is walked up to 256 MiB, holding little more than its
text; above a format's cap the report names the member and review rejects it (exit 2).
"""

from __future__ import annotations

import base64
import json
import tracemalloc
from pathlib import Path

import pytest
from click.testing import CliRunner

from bundler.cli import cli
from bundler.source import DEFAULT_MAX_JSON_BYTES, MemorySource
from redactors import BundleRedactor, Policy
from redactors.errors import MemberUnreadable
from redactors.review import review_source
from redactors.structure import structure_walk
from redactors.tokens import TOKEN_RE
from redactors.walklimits import WALK_CAPS
from tests.support.redaction import run

PLANTED = b"Zr8-UltraPrivate-Value-91x"
ENCODED = base64.b64encode(PLANTED)


def listing(config_maps: int) -> bytes:
    """``kubectl get cm,secrets -o json``: ConfigMaps, then one ``Secret`` whose ``data``
    value no line rule can recognize (base64 under an ordinary-looking key)."""
    items: list[dict[str, object]] = [
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": f"cm-{i}", "namespace": "default"},
            "data": {"note": "x" * 200},
        }
        for i in range(config_maps)
    ]
    items.append(
        {
            "apiVersion": "v1",
            "kind": "Secret",
            "metadata": {"name": "db"},
            "type": "Opaque",
            "data": {"conn-extra": ENCODED.decode()},
        }
    )
    return json.dumps({"apiVersion": "v1", "kind": "List", "items": items}, indent=1).encode()


def _cli(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_a_member_over_the_policys_cap_is_named_in_the_report() -> None:
    data = listing(40)
    outputs, redactor, _ = run({"all.json": data}, Policy(structure_max=len(data) - 1))
    assert outputs["all.json"] == data  # the line rules alone: nothing for them here
    (skipped,) = redactor.report().skipped
    assert (skipped.member, skipped.reason, skipped.kept) == ("all.json", "too_large", True)
    assert skipped.detail == (
        f"a JSON document over the {len(data) - 1} bytes the structure walk reads: line rules only"
    )


def test_review_rejects_a_member_over_its_cap_instead_of_calling_it_clean() -> None:
    data = listing(40)
    with pytest.raises(MemberUnreadable, match="review cannot vouch") as raised:
        review_source(MemorySource({"all.json": data}), structure_max=len(data) - 1)
    assert raised.value.member == "all.json"
    assert review_source(MemorySource({"all.json": data}), structure_max=len(data)).findings


def _toml_over_16_mib() -> bytes:
    """A settings file TOML's parser would have to hold whole: 16 MiB is as far as it goes."""
    lines = [b"[limits]\n"] + [
        b'host_%06d = "worker.example.internal"\n' % i for i in range(460_000)
    ]
    data = b"".join(lines)
    assert len(data) > 16 << 20
    return data


def test_redact_then_review_of_a_toml_file_too_large_to_parse(tmp_path: Path) -> None:
    """End to end: redact writes it with the line rules and says so; review rejects it."""
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    (src / "settings.toml").write_bytes(_toml_over_16_mib())
    code, _, err = _cli("redact", str(src), "--out", str(out))
    assert code == 0, err
    assert "1 skipped (line rules only 1; see the report)" in err
    report = json.loads((out / "redaction-report.json").read_text())
    assert [(s["member"], s["reason"], s["kept"]) for s in report["skipped"]] == [
        ("settings.toml", "too_large", True)
    ]
    for target in (out, src):
        code, stdout, err = _cli("review", str(target))
        assert code == 2, (stdout, err)
        assert err.splitlines()[0] == (
            f"bundler: error: {target}: unreadable: rejected: member 'settings.toml': a TOML "
            "document over the 16 MiB the structure walk reads: review cannot vouch that no "
            "value under a secret key is left"
        )
        assert "clean" not in stdout + err


@pytest.fixture(scope="module")
def big_listing() -> bytes:
    """17.4 MB: over the 16 MiB where the walk used to stop."""
    data = listing(48_000)
    assert len(data) > 16 << 20
    return data


def _only_planted_replaced(out: bytes, original: bytes) -> None:
    assert PLANTED not in out
    assert ENCODED not in out
    tokens = {match[0] for match in TOKEN_RE.finditer(out)}
    assert len(tokens) == 1
    assert out.replace(tokens.pop(), ENCODED) == original  # byte for byte, but the value


def test_a_json_listing_over_16_mib_is_walked_by_redact_and_review(big_listing: bytes) -> None:
    raw = review_source(MemorySource({"all.json": big_listing}))
    line = big_listing[: big_listing.index(ENCODED)].count(b"\n") + 1
    assert [(f.member, f.line, f.kind) for f in raw.findings] == [("all.json", line, "k8s-secret")]
    outputs, redactor, _ = run({"all.json": big_listing})
    _only_planted_replaced(outputs["all.json"], big_listing)
    assert redactor.report().skipped == []
    assert review_source(MemorySource(outputs)).findings == []


def test_bundler_redact_and_review_of_a_large_listing(tmp_path: Path, big_listing: bytes) -> None:
    """The reproduction: ``redact`` left the value in clear, ``review`` said clean of both."""
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    (src / "all.json").write_bytes(big_listing)
    code, _, err = _cli("redact", str(src), "--out", str(out))
    assert code == 0, err
    assert "1 redaction (k8s-secret 1); 0 skipped" in err
    _only_planted_replaced((out / "all.json").read_bytes(), big_listing)
    code, stdout, err = _cli("review", str(out))
    assert code == 0, stdout
    assert err.endswith("2 members, 16.6 MiB: clean\n")
    code, stdout, _ = _cli("review", str(src))
    assert code == 1
    line = big_listing[: big_listing.index(ENCODED)].count(b"\n") + 1
    assert stdout.startswith(f"all.json:{line}\tk8s-secret\tdetector\t")


def test_the_walk_reads_json_as_far_as_bundlers_readers_do() -> None:
    """A document ``analyze`` loads is one the redactor walked (redactors cannot import it)."""
    assert WALK_CAPS["json"] == DEFAULT_MAX_JSON_BYTES


def _walk_peak(config_maps: int) -> tuple[int, int]:
    data = listing(config_maps)
    tracemalloc.start()
    try:
        assert len(structure_walk(data, "json").literals) == 2  # the value and its decoded form
        return len(data), tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_the_json_walk_holds_an_item_not_a_decoded_copy_of_the_text() -> None:
    """Before, the text was decoded whole: ~1.1 times its size more (4.4 with one emoji)."""
    small_size, small_peak = _walk_peak(6_000)
    big_size, big_peak = _walk_peak(24_000)
    assert big_size - small_size > 6 << 20
    assert big_peak - small_peak < (big_size - small_size) // 8


def _transform_peak(config_maps: int) -> tuple[int, int]:
    """(size, peak traced bytes) of pass one over a listing read in 256 KiB pieces."""
    data = listing(config_maps)
    redactor = BundleRedactor(key=b"k" * 32)
    pieces = (data[at : at + (1 << 18)] for at in range(0, len(data), 1 << 18))
    tracemalloc.start()
    try:
        for _ in redactor.transform("all.json", pieces, media_type="application/json"):
            pass
        return len(data), tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_redacting_a_large_json_member_holds_it_about_once() -> None:
    """What a redaction worker holds for a structured member: the member, gathered to be
    parsed (the walk needs all of it), and little else. Before, the gathered chunks and
    their joined copy (twice the member), the decoded text (once more) and the line pass's
    copies of what was left of it (once more) were all held at the peak."""
    small_size, small_peak = _transform_peak(5_500)
    big_size, big_peak = _transform_peak(16_500)
    assert big_size - small_size > 3 << 20
    assert big_peak - small_peak < (big_size - small_size) * 3 // 2


def test_a_cut_off_listing_is_salvaged_without_its_tree() -> None:
    """A listing a size limit cut mid-item was salvaged from its whole text, every item built
    at once (the whole-text salvage); it is read as an uncut one is, up to the cut."""

    def peak(config_maps: int) -> tuple[int, int]:
        whole = listing(config_maps)
        data = whole[: whole.index(b"}", whole.index(ENCODED)) + 1]  # in the Secret, its data read
        tracemalloc.start()
        try:
            assert len(structure_walk(data, "json").literals) == 2  # found in the item cut off
            return len(data), tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    small_size, small_peak = peak(6_000)
    big_size, big_peak = peak(24_000)
    assert big_peak - small_peak < (big_size - small_size) // 8


def yaml_listing(config_maps: int, *, stream: bool) -> bytes:
    """``kubectl get cm,secrets -o yaml`` (one ``List`` document) or the same objects as a
    stream of documents (``kubectl get ... -o yaml`` per object, ``---`` between them)."""
    objects = [
        f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-{i}\n  namespace: default\n"
        f"data:\n  note: {'x' * 200}\n"
        for i in range(config_maps)
    ]
    objects.append(
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\ntype: Opaque\n"
        f"data:\n  conn-extra: {ENCODED.decode()}\n"
    )
    if stream:
        return "---\n".join(objects).encode()
    items = "".join("- " + item.replace("\n", "\n  ").rstrip(" ") for item in objects)
    return f"apiVersion: v1\nkind: List\nitems:\n{items}metadata:\n  resourceVersion: ''\n".encode()


@pytest.mark.parametrize("stream", [False, True], ids=["one document", "a stream"])
def test_the_yaml_walk_holds_a_document_or_an_item_not_the_tree(stream: bool) -> None:
    """Before, the whole stream was built at once: some twenty times its text."""

    def peak(config_maps: int) -> tuple[int, int]:
        data = yaml_listing(config_maps, stream=stream)
        tracemalloc.start()
        try:
            assert len(structure_walk(data, "yaml").literals) == 2
            return len(data), tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    small_size, small_peak = peak(4_000)  # both read as large members (over 1 MiB)
    big_size, big_peak = peak(8_000)
    assert big_size - small_size > 1 << 20
    assert big_peak - small_peak < (big_size - small_size) // 8


def test_a_yaml_listing_is_redacted_where_the_value_stands_and_nowhere_else() -> None:
    """One large document, read item by item: the output is the input but the value."""
    data = yaml_listing(6_000, stream=False)
    assert len(data) > 1 << 20
    assert review_source(MemorySource({"all.yaml": data})).findings
    outputs, redactor, _ = run({"all.yaml": data})
    _only_planted_replaced(outputs["all.yaml"], data.replace(ENCODED, b"'%s'" % ENCODED))
    assert redactor.report().skipped == []
    assert review_source(MemorySource(outputs)).findings == []


def test_bundler_redact_and_review_of_a_yaml_stream_over_16_mib(tmp_path: Path) -> None:
    data = yaml_listing(62_000, stream=True)
    assert len(data) > 16 << 20
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    (src / "all.yaml").write_bytes(data)
    code, _, err = _cli("redact", str(src), "--out", str(out))
    assert code == 0, err
    assert "1 redaction (k8s-secret 1); 0 skipped" in err
    assert ENCODED not in (out / "all.yaml").read_bytes()
    code, stdout, _ = _cli("review", str(out))
    assert code == 0, stdout
    code, stdout, _ = _cli("review", str(src))
    assert code == 1
    line = data[: data.index(ENCODED)].count(b"\n") + 1
    assert stdout.startswith(f"all.yaml:{line}\tk8s-secret\tdetector\t")


@pytest.mark.parametrize("fmt", ["json", "yaml"])
def test_a_clean_large_document_comes_out_as_it_went_in(fmt: str, big_listing: bytes) -> None:
    """The walk adds no redaction of its own: with no Secret (the same value under a
    ConfigMap's data), the output is the input, byte for byte, and reviews clean."""
    if fmt == "json":
        data = big_listing.replace(b'"kind": "Secret"', b'"kind": "ConfigMap"')
    else:
        data = yaml_listing(6_000, stream=False).replace(b"kind: Secret", b"kind: ConfigMap")
    name = f"all.{fmt}"
    assert review_source(MemorySource({name: data})).findings == []
    outputs, redactor, _ = run({name: data})
    assert outputs[name] == data
    assert redactor.report().skipped == []
    assert redactor.report().total == 0
