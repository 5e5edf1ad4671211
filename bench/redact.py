"""Benchmarks of the redaction engine and ``bundler redact`` (run on demand, never in CI).

Data: deterministic mixed logs (``bench/logdata.py``: syslog, JSON app logs,
logfmt, nginx, stack frames; planted secrets and decoys), cached in
``bench/out/``. Modes::

    taskset -c 0 python bench/redact.py engine --size-mb 200   # redaction alone, one core
    python bench/redact.py bundle --size-mb 200 [--files 8]  # bundler redact -> .zip vs pyzipper,
                                                             # interleaved, wall and CPU columns
    python bench/redact.py bundle --size-mb 200 --bare 5     # learned values also bare: pass two
                                                             # has to change the text
    python bench/redact.py pool --size-mb 200 --files 8   # several files: 1 vs 2 workers
    python bench/redact.py rss --size-mb 2000 --distinct 1000  # one 2 GB log: peak RSS of a child
    python bench/redact.py rss --size-mb 2000 --distinct 1000 --bundle  # same, redact -> .zip
    taskset -c 0 python bench/redact.py engine --corpus      # realistic bundle corpus, per type
    python bench/redact.py bundle --corpus --scale 5         # corpus x5 (~165 MB) vs pyzipper
    taskset -c 0 python bench/redact.py rules --corpus       # each catalog rule's own CPU time

``--corpus`` uses ``bench/corpus.py`` (a support bundle's shapes: Flux logs with base64
cursors, JSON listings, HAR, SQL dump, journal JSON, Prometheus, kube YAML, configs, keys)
instead of the mixed logs; ``--scale N`` writes N copies from different seeds.

Every mode prints MB/s of *input* (MB = 10^6 bytes) and checks that no
planted secret survived.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from bench import corpus as realistic  # noqa: E402
from bench.logdata import write  # noqa: E402

OUT = HERE / "out"
CHUNK = 1 << 20


def dataset(size_mb: int, seed: int = 12345, distinct: int = 0) -> tuple[Path, list[str]]:
    OUT.mkdir(exist_ok=True)
    path = OUT / f"mixed-{size_mb}mb-{seed}{f'-d{distinct}' if distinct else ''}.log"
    planted_path = path.with_suffix(".planted.json")
    if not path.exists() or not planted_path.exists():
        planted = write(str(path), size_mb * 1_000_000, seed, distinct)
        planted_path.write_text(json.dumps(planted))
    return path, json.loads(planted_path.read_text())


def _leaks(data: bytes, planted: list[str]) -> int:
    """How many distinct planted values occur in ``data`` (one automaton pass for all)."""
    import ahocorasick_rs

    values = sorted({value.encode() for value in planted})
    matcher = ahocorasick_rs.BytesAhoCorasick(values)
    return len({index for index, _, _ in matcher.find_matches_as_indexes(data, overlapping=True)})


def engine(args: argparse.Namespace) -> None:
    if args.corpus:
        corpus_engine(args)
        return
    from redactors import BundleRedactor

    path, planted = dataset(args.size_mb, distinct=args.distinct)
    data = path.read_bytes()
    chunks = [data[i : i + CHUNK] for i in range(0, len(data), CHUNK)]
    mb = len(data) / 1e6
    first_times, final_times, first_cpu = [], [], []
    for _ in range(args.repeat):
        redactor = BundleRedactor()
        start, cpu = time.perf_counter(), time.process_time()
        first = b"".join(redactor.transform("app.log", chunks, media_type="text/plain"))
        middle, cpu_middle = time.perf_counter(), time.process_time()
        final = b"".join(
            redactor.finalize(
                "app.log", [first[i : i + CHUNK] for i in range(0, len(first), CHUNK)]
            )
        )
        end = time.perf_counter()
        first_times.append(middle - start)
        final_times.append(end - middle)
        first_cpu.append(cpu_middle - cpu)
    report = redactor.report()
    print(f"data: {mb:.1f} MB, {len(planted)} planted values, {report.total} redactions, "
          f"{len(redactor.literals)} literals learned")  # fmt: skip
    print(f"pass one (rules, structure, decoders): best {mb / min(first_times):.1f} MB/s, "
          f"median {mb / statistics.median(first_times):.1f} MB/s")  # fmt: skip
    print(f"pass one per CPU second (what a busy machine does not distort): "
          f"best {mb / min(first_cpu):.1f} MB/s")  # fmt: skip
    print(f"pass two (literal propagation):        best {mb / min(final_times):.1f} MB/s")
    both = [a + b for a, b in zip(first_times, final_times, strict=True)]
    print(f"both passes:                           best {mb / min(both):.1f} MB/s")
    print(f"planted values left in the output: {_leaks(final, planted)}")


def _pyzipper_alone(path: Path, target: Path) -> None:
    import pyzipper
    from pyzipper.zipfile_aes import AESZipInfo

    with pyzipper.AESZipFile(
        target,
        "w",
        compression=pyzipper.ZIP_DEFLATED,
        compresslevel=6,
        encryption=pyzipper.WZ_AES,
        encryption_kwargs={"nbits": 256, "force_wz_aes_version": 2},
    ) as zf:
        zf.setpassword(b"a long enough bundle password")
        info = AESZipInfo("app.log", date_time=(2026, 11, 29, 0, 0, 0))
        info.compress_type = pyzipper.ZIP_DEFLATED
        info._compresslevel = 6
        with path.open("rb") as src, zf.open(info, "w", force_zip64=True) as dst:
            while chunk := src.read(CHUNK):
                dst.write(chunk)


def _cpu_now() -> float:
    """CPU seconds so far of this process (all threads) and of its reaped children."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + usage.ru_utime + usage.ru_stime


def _timed(action) -> tuple[float, float]:  # type: ignore[no-untyped-def]
    """(wall, CPU) seconds of ``action()`` (CPU: :func:`_cpu_now`)."""
    wall, cpu = time.perf_counter(), _cpu_now()
    action()
    return time.perf_counter() - wall, _cpu_now() - cpu


class _Phases:
    """``bundler redact``'s progress callback, timing each phase (pass one, pass two, sealing).

    CPU is this process's plus its reaped children's: a phase's pool is shut down (and its
    workers reaped) before the next phase begins, so each phase's workers count in it.
    """

    def __init__(self) -> None:
        self.marks: list[tuple[str, float, float]] = []

    def __call__(self, text: str) -> None:
        name = text.partition(":")[0] if ":" in text else text.split()[0]
        self.marks.append((name, time.perf_counter(), _cpu_now()))

    def report(self) -> str:
        end = (time.perf_counter(), _cpu_now())
        rows = []
        for (name, wall, cpu), (_, next_wall, next_cpu) in zip(
            self.marks, [*self.marks[1:], ("end", *end)], strict=True
        ):
            rows.append(f"{name} {next_wall - wall:.2f} s wall {next_cpu - cpu:.2f} s CPU")
        return "; ".join(rows)


def bundle(args: argparse.Namespace) -> None:
    """pyzipper alone and ``bundler redact`` -> bundle, interleaved, on the same data."""
    from bundler.archive import BundleReader, PasswordKey, Secret

    if args.corpus:
        corpus_bundle(args)
        return
    if args.stdlib_zlib:  # the pool forks after this, so its workers use it too
        import zlib

        import bundler.archive.deflate as deflate_module

        deflate_module.codec = zlib  # type: ignore[assignment]
    path, planted = dataset(args.size_mb, distinct=args.distinct)
    if args.bare:
        path = _with_bare_values(path, planted, args.bare)
    mb = path.stat().st_size / 1e6
    cores = len(os.sched_getaffinity(0))
    password = "a long enough bundle password"  # noqa: S105 - a benchmark's throwaway
    try:
        from bundler.archive.deflate import codec

        deflater = codec.__name__
    except ImportError:  # a build before members were deflated in the workers
        deflater = "pyzipper (zlib) in the main process"
    print(f"data: {mb:.1f} MB, {args.files} file(s), --distinct {args.distinct}; "
          f"{cores} core(s) usable; {args.repeat} interleaved repeats; "
          f"bundler deflates with {deflater}")  # fmt: skip
    work = Path(tempfile.mkdtemp(dir=OUT))
    rows: dict[str, list[tuple[float, float]]] = {"pyzipper": [], "bundler": []}
    try:
        src = work / "src"
        src.mkdir()
        _split(path, src, args.files)
        _race(rows, lambda: _pyzipper_alone(path, work / "plain.zip"), src, work, args, password)
        with BundleReader.open(work / "out.zip", PasswordKey(Secret(password))) as reader:
            out = b"".join(reader.read_bytes(n) for n in reader.names() if n.endswith(".log"))
            problems = reader.check().problems
    finally:
        shutil.rmtree(work, ignore_errors=True)
    _rows_table(rows, mb, target=" (target >= 50 %)")
    print(f"planted values left in the bundle: {_leaks(out, planted)}; "
          f"integrity problems: {len(problems)}")  # fmt: skip


def _with_bare_values(path: Path, planted: list[str], count: int) -> Path:
    """A copy of the data whose first line holds ``count`` planted values bare.

    The rules find each value later, in context; here nothing gives it away,
    so only literal propagation (pass two) removes it, and the member (or,
    for one big file, its first segment) is finalized again.
    """
    bare = path.with_name(f"{path.stem}-bare{count}.log")
    if not bare.exists():
        values = [v for v in dict.fromkeys(planted) if len(v) >= 12][:count]
        with bare.open("wb") as out, path.open("rb") as src:
            out.write(b"bare values: " + " ".join(values).encode() + b"\n")
            shutil.copyfileobj(src, out, CHUNK)
    return bare


def _split(path: Path, folder: Path, files: int) -> None:
    """``files`` members cut at line ends (one hard link when files == 1)."""
    if files == 1:
        os.link(path, folder / "app.log")
        return
    data = path.read_bytes()
    cut = len(data) // files
    start = 0
    for i in range(files):
        end = len(data) if i == files - 1 else data.index(b"\n", (i + 1) * cut) + 1
        (folder / f"host{i}.log").write_bytes(data[start:end])
        start = end


def pool(args: argparse.Namespace) -> None:
    from bundler.redaction.config import RedactConfig
    from bundler.redaction.handoff import new_key
    from bundler.redaction.outputs import redact_to_directory

    path, planted = dataset(args.size_mb, distinct=args.distinct)
    data = path.read_bytes()
    work = Path(tempfile.mkdtemp(dir=OUT))
    try:
        src = work / "src"
        src.mkdir()
        cut = len(data) // args.files
        for i in range(args.files):
            piece = data[i * cut : (i + 1) * cut if i < args.files - 1 else len(data)]
            (src / f"host{i}.log").write_bytes(piece)
        mb = len(data) / 1e6
        for workers in (1, 2):
            config = RedactConfig(key=os.urandom(32), handoff_key=new_key())
            start = time.perf_counter()
            ru_before = resource.getrusage(resource.RUSAGE_CHILDREN)
            redact_to_directory(src, work / f"out{workers}", config, workers=workers)
            took = time.perf_counter() - start
            ru_after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu = ru_after.ru_utime - ru_before.ru_utime
            out = b"".join(p.read_bytes() for p in (work / f"out{workers}").glob("*.log"))
            print(f"{args.files} files, workers={workers}: {mb / took:.1f} MB/s wall, "
                  f"children CPU {cpu:.1f} s, leaks {_leaks(out, planted)}")  # fmt: skip
    finally:
        shutil.rmtree(work, ignore_errors=True)


def rss(args: argparse.Namespace) -> None:
    path, _ = dataset(args.size_mb, distinct=args.distinct)
    start = time.perf_counter()
    child_mode = "_rss_bundle_child" if args.bundle else "_rss_child"
    proc = subprocess.run(
        [sys.executable, __file__, child_mode, str(path)],
        capture_output=True,
        text=True,
        check=True,
    )
    took = time.perf_counter() - start
    child = json.loads(proc.stdout)
    mb = path.stat().st_size / 1e6
    what = "bundler redact -> encrypted bundle" if args.bundle else "both passes, disk to disk"
    workers = child.get("workers_maxrss_mb")
    print(
        f"one {mb:.0f} MB log, {what}: {mb / took:.1f} MB/s, "
        f"peak RSS of the child {child['maxrss_mb']:.0f} MB"
        + (f", of its largest worker process {workers:.0f} MB" if workers else "")
    )


def _rss_bundle_child(path: str) -> None:
    from bundler.archive.passwords import Sealing
    from bundler.redaction.config import RedactConfig
    from bundler.redaction.handoff import new_key
    from bundler.redaction.outputs import redact_to_bundle

    with tempfile.TemporaryDirectory(dir=OUT) as tmp:
        src = Path(tmp) / "src"
        src.mkdir()
        os.link(path, src / "big.log")
        config = RedactConfig(key=os.urandom(32), handoff_key=new_key())
        sealing = Sealing.with_password("a long enough bundle password")
        redact_to_bundle(src, Path(tmp) / "out.zip", config, sealing)
    maxrss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    workers = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(json.dumps({"maxrss_mb": maxrss, "workers_maxrss_mb": workers}))


def _rss_child(path: str) -> None:
    from redactors import BundleRedactor

    def read(p: str):  # type: ignore[no-untyped-def]
        with open(p, "rb") as handle:
            while chunk := handle.read(CHUNK):
                yield chunk

    redactor = BundleRedactor()
    with tempfile.TemporaryDirectory(dir=OUT) as tmp:
        first = Path(tmp) / "first"
        with first.open("wb") as out:
            for piece in redactor.transform("big.log", read(path), media_type="text/plain"):
                out.write(piece)
        with open(os.devnull, "wb") as out:
            for piece in redactor.finalize("big.log", read(str(first))):
                out.write(piece)
    maxrss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"maxrss_mb": maxrss}))


def _corpus_files(root: Path, min_bytes: int = 0) -> list[tuple[str, Path]]:
    files = sorted(p for p in root.rglob("*") if p.is_file() and p.stat().st_size >= min_bytes)
    return [(str(p.relative_to(root)), p) for p in files]


def corpus_engine(args: argparse.Namespace) -> None:
    """Pass one per file of the realistic corpus (``BundleRedactor().transform``), per type.

    One redactor per run, as ``bundler redact`` has one per bundle; a fixed
    key, so ``output sha256`` is comparable across builds and engines (same
    rules: same bytes). Times are this process's CPU seconds: on a shared
    machine, waiting for a core is not counted. Pass two and the leak check
    run after the timing.
    """
    from bundler.redaction.config import media_type_for
    from redactors import BundleRedactor, MemberRefused

    if args.reference:
        _reference_engine()
    root, truth = realistic.corpus(args.scale)
    files = _corpus_files(root, args.min_kb * 1000)
    texts = {rel: path.read_bytes() for rel, path in files}
    times: dict[str, list[float]] = {rel: [] for rel, _ in files}
    outputs: dict[str, bytes] = {}
    redactor = BundleRedactor(key=b"bench-key" * 4)
    for _ in range(args.repeat):
        redactor = BundleRedactor(key=b"bench-key" * 4)
        for rel, _ in files:
            data = texts[rel]
            chunks = [data[i : i + CHUNK] for i in range(0, len(data), CHUNK)]
            start = time.process_time()
            try:
                out = b"".join(redactor.transform(rel, chunks, media_type=media_type_for(rel)))
            except MemberRefused:
                out = b""
            times[rel].append(time.process_time() - start)
            outputs[rel] = out
    digest = hashlib.sha256()
    for rel, _ in files:
        digest.update(rel.encode() + b"\0" + outputs[rel] + b"\0")
    if args.save is not None:
        for rel, out in outputs.items():
            target = args.save / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(out)
    final = b"".join(
        b"".join(redactor.finalize(rel, [out], media_type=media_type_for(rel)))
        for rel, out in outputs.items()
    )
    kinds: dict[str, list[str]] = {}
    for rel, _ in files:
        kinds.setdefault(truth.kinds.get(rel, "other"), []).append(rel)
    total = sum(len(t) for t in texts.values()) / 1e6
    print(
        f"corpus {root.name}: {len(files)} files, {total:.1f} MB; "
        f"{args.repeat} run(s), best per file"
    )
    print(f"{'file type':<16}{'files':>6}{'MB':>8}{'MB/s':>9}   slowest file (MB/s)")
    for kind, rels in sorted(kinds.items()):
        mb = sum(len(texts[r]) for r in rels) / 1e6
        took = sum(min(times[r]) for r in rels)
        slow = min(rels, key=lambda r: len(texts[r]) / 1e6 / max(min(times[r]), 1e-9))
        rate = len(texts[slow]) / 1e6 / max(min(times[slow]), 1e-9)
        print(f"{kind:<16}{len(rels):>6}{mb:>8.2f}{mb / took:>9.1f}   {slow} ({rate:.1f})")
    took = sum(min(t) for t in times.values())
    print(
        f"{'overall':<16}{len(files):>6}{total:>8.2f}{total / took:>9.1f}"
        "   (pass one, MB per CPU second)"
    )
    print(f"pass one output sha256 {digest.hexdigest()[:16]}; {redactor.report().total} redactions")
    print(f"planted values left after both passes: {_leaks(final, truth.planted)} "
          f"of {len(set(truth.planted))}; decoys kept: "
          f"{_leaks(final, truth.decoys)} of {len(set(truth.decoys))}; opaque values "
          f"replaced by design: {len(set(truth.opaque)) - _leaks(final, truth.opaque)} "
          f"of {len(set(truth.opaque))}")  # fmt: skip


def _reference_engine() -> None:
    """Engines built from now on scan without the probe, the block cache, the batched proof
    of a view's cursors or the accelerator: the reference the fast paths must match byte
    for byte (compare the output sha256)."""
    import redactors.engine as engine_module

    os.environ["BUNDLER_REDACT_ACCEL"] = "off"
    original = engine_module.Engine.__init__

    def plain(self, *args, **kwargs) -> None:  # type: ignore[no-untyped-def]
        original(self, *args, **kwargs)
        self.probe = None
        self.decoders._cache = None
        self.decoders.prover = None

    engine_module.Engine.__init__ = plain  # type: ignore[method-assign]


def _pyzipper_files(files: list[tuple[str, Path]], target: Path) -> None:
    import pyzipper
    from pyzipper.zipfile_aes import AESZipInfo

    with pyzipper.AESZipFile(
        target,
        "w",
        compression=pyzipper.ZIP_DEFLATED,
        compresslevel=6,
        encryption=pyzipper.WZ_AES,
        encryption_kwargs={"nbits": 256, "force_wz_aes_version": 2},
    ) as zf:
        zf.setpassword(b"a long enough bundle password")
        for rel, path in files:
            info = AESZipInfo(rel, date_time=(2026, 11, 29, 0, 0, 0))
            info.compress_type = pyzipper.ZIP_DEFLATED
            info._compresslevel = 6
            with path.open("rb") as src, zf.open(info, "w", force_zip64=True) as dst:
                while chunk := src.read(CHUNK):
                    dst.write(chunk)


def corpus_bundle(args: argparse.Namespace) -> None:
    """pyzipper over the corpus's files and ``bundler redact CORPUS --out x.zip``, interleaved."""
    from bundler.archive import BundleReader, PasswordKey, Secret

    root, truth = realistic.corpus(args.scale)
    files = _corpus_files(root)
    mb = sum(p.stat().st_size for _, p in files) / 1e6
    cores = len(os.sched_getaffinity(0))
    password = "a long enough bundle password"  # noqa: S105 - a benchmark's throwaway
    print(f"corpus {root.name}: {len(files)} files, {mb:.1f} MB; {cores} core(s) usable; "
          f"{args.repeat} interleaved repeats")  # fmt: skip
    work = Path(tempfile.mkdtemp(dir=OUT))
    rows: dict[str, list[tuple[float, float]]] = {"pyzipper": [], "bundler": []}
    try:
        _race(rows, lambda: _pyzipper_files(files, work / "plain.zip"), root, work, args, password)
        with BundleReader.open(work / "out.zip", PasswordKey(Secret(password))) as reader:
            names = [
                n for n in reader.names() if n not in ("manifest.json", "redaction-report.json")
            ]
            out = b"".join(reader.read_bytes(n) for n in names)
            problems = reader.check().problems
    finally:
        shutil.rmtree(work, ignore_errors=True)
    _rows_table(rows, mb)
    print(f"planted values left in the bundle: {_leaks(out, truth.planted)} of "
          f"{len(set(truth.planted))}; members {len(names)}; "
          f"integrity problems: {len(problems)}")  # fmt: skip


def _race(
    rows: dict[str, list[tuple[float, float]]],
    pyzipper: Callable[[], object],
    src: Path,
    work: Path,
    args: argparse.Namespace,
    password: str,
) -> None:
    """Interleaved runs of pyzipper alone and ``bundler redact`` into a bundle, same files."""
    from bundler.archive.passwords import Sealing
    from bundler.redaction.config import RedactConfig
    from bundler.redaction.handoff import new_key
    from bundler.redaction.outputs import redact_to_bundle

    for run in range(args.repeat):
        for target in (work / "plain.zip", work / "out.zip"):
            target.unlink(missing_ok=True)
        rows["pyzipper"].append(_timed(pyzipper))
        config = RedactConfig(key=os.urandom(32), handoff_key=new_key())
        sealing = Sealing.with_password(password)
        phases = _Phases()
        rows["bundler"].append(
            _timed(
                partial(
                    redact_to_bundle, src, work / "out.zip", config, sealing,
                    workers=args.workers, progress=phases,
                )
            )
        )  # fmt: skip
        (pw, pc), (bw, bc) = rows["pyzipper"][-1], rows["bundler"][-1]
        print(f"  run {run + 1}: pyzipper {pw:5.2f} s wall {pc:5.2f} s CPU | "
              f"bundler {bw:5.2f} s wall {bc:5.2f} s CPU | "
              f"wall ratio {100 * pw / bw:.0f} %")  # fmt: skip
        print(f"         bundler's phases: {phases.report()}")


def _rows_table(rows: dict[str, list[tuple[float, float]]], mb: float, target: str = "") -> None:
    print(f"{'row':<38}{'best wall':>10}{'MB/s':>8}{'median wall':>13}{'median CPU':>12}")
    for label, key in (("pyzipper deflate-6 + AES-256 alone", "pyzipper"),
                       ("bundler redact -> encrypted bundle", "bundler")):  # fmt: skip
        walls = [w for w, _ in rows[key]]
        cpus = [c for _, c in rows[key]]
        print(f"{label:<38}{min(walls):>9.2f}s{mb / min(walls):>8.1f}"
              f"{statistics.median(walls):>12.2f}s{statistics.median(cpus):>11.2f}s")  # fmt: skip
    ratios = [p[0] / b[0] for p, b in zip(rows["pyzipper"], rows["bundler"], strict=True)]
    print(f"bundler / pyzipper throughput, same run: best {100 * max(ratios):.0f} %, "
          f"median {100 * statistics.median(ratios):.0f} %{target}")  # fmt: skip


def rules(args: argparse.Namespace) -> None:
    """Each built-in rule's own CPU time over the text (1 MiB views), the costliest first.

    What a new or changed rule costs, apart from the rest of pass one: a rule whose literals
    the index cannot use runs over every view (``tests/redact/test_anchors.py`` names the
    one that may), and one whose handler does Python work per match shows here before it
    shows in ``engine``'s total. The rule runs where the literal index would run it.
    """
    from redactors import BUILTIN_RULES, Engine, View

    if args.corpus:
        root, _ = realistic.corpus(args.scale)
        texts = [p.read_bytes() for _, p in _corpus_files(root)]
    else:
        texts = [dataset(args.size_mb)[0].read_bytes()]
    engine = Engine(BUILTIN_RULES)
    indexed = engine.anchors.indexed
    spent: list[list[float]] = [[0.0, 0] for _ in engine.rules]
    for run in range(args.repeat):
        for text in texts:
            for offset in range(0, len(text), CHUNK):
                view = View(text[offset : offset + CHUNK])
                starts = engine.anchors.positions(view)
                for index, rule in enumerate(engine.rules):
                    if index in indexed and index not in starts:
                        continue
                    began = time.process_time()
                    hits = rule.hits(view, starts[index]) if index in starts else rule.hits(view)
                    found = len(list(hits))
                    took = time.process_time() - began
                    if run == args.repeat - 1:  # the last run: the caches of earlier ones warm
                        spent[index][0] += took
                        spent[index][1] += found
    mb = sum(len(t) for t in texts) / 1e6
    total = sum(cost for cost, _ in spent)
    print(f"{len(engine.rules)} rules over {mb:.1f} MB: {total * 1000:.0f} ms of CPU in all")
    print(f"{'rule':<36}{'ms':>8}{'hits':>8}   indexed")
    ranked = sorted(range(len(spent)), key=lambda i: -spent[i][0])
    for index in ranked[: args.top]:
        cost, count = spent[index]
        mark = "yes" if index in indexed else "no (every view)"
        print(f"{engine.rules[index].id:<36}{cost * 1000:>8.1f}{count:>8.0f}   {mark}")


def main() -> None:
    if len(sys.argv) > 2 and sys.argv[1] == "_rss_child":
        _rss_child(sys.argv[2])
        return
    if len(sys.argv) > 2 and sys.argv[1] == "_rss_bundle_child":
        _rss_bundle_child(sys.argv[2])
        return
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("mode", choices=["engine", "bundle", "pool", "rss", "gen", "rules"])
    parser.add_argument("--top", type=int, default=20, help="rules mode: how many rules to list")
    parser.add_argument("--size-mb", type=int, default=200)
    parser.add_argument("--files", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--workers", type=int, default=None, help="bundle mode: pool size")
    parser.add_argument(
        "--bundle", action="store_true", help="rss mode: the whole bundler redact -> .zip path"
    )
    parser.add_argument(
        "--bare",
        type=int,
        default=0,
        help="bundle mode: put this many learned values bare on the first line (pass two changes)",
    )
    parser.add_argument(
        "--stdlib-zlib", action="store_true", help="bundle mode: deflate with zlib, not zlib-ng"
    )
    parser.add_argument(
        "--corpus",
        action="store_true",
        help="engine/bundle modes: the realistic bundle corpus (bench/corpus.py), not mixed logs",
    )
    parser.add_argument("--scale", type=int, default=1, help="--corpus: copies of the corpus")
    parser.add_argument(
        "--min-kb", type=int, default=0, help="engine --corpus: only files of at least this size"
    )
    parser.add_argument(
        "--reference",
        action="store_true",
        help="engine --corpus: without the fast paths (probe, block cache, accelerator)",
    )
    parser.add_argument(
        "--save", type=Path, default=None, help="engine --corpus: write pass one's outputs here"
    )
    parser.add_argument(
        "--distinct",
        type=int,
        default=0,
        help="plant secrets from a pool of this many values (default: every one new)",
    )
    args = parser.parse_args()
    if args.mode == "gen":
        print(dataset(args.size_mb, distinct=args.distinct)[0])
        return
    modes = {"engine": engine, "bundle": bundle, "pool": pool, "rss": rss, "rules": rules}
    modes[args.mode](args)


if __name__ == "__main__":
    main()
