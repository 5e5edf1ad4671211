"""``python -m samples``: the committed sample bundles.

::

    python -m samples list                            # the table of samples/README.md
    python -m samples regenerate                      # rebuild all of them (minutes: real labs)
    python -m samples regenerate --only flux-hung     # one sample (file name without .zip)
    python -m samples regenerate --only lyftdata      # every sample of one product

Regeneration needs the Flux venv (scripts/setup.sh) and OpenSSH sshd as root.
It replaces nothing until every requested sample is built, verified, reviewed
clean and analyzed to the verdict its scenario promises; then it rewrites
samples/bundles/catalog.json and the table in samples/README.md from the
actual ``bundler analyze`` results.
"""

from __future__ import annotations

import argparse
import sys
import time

from bundler.plurals import counted

from . import catalog


def cmd_list(_: argparse.Namespace) -> int:
    print(catalog.render_table(catalog.load_catalog()))
    return 0


def cmd_regenerate(args: argparse.Namespace) -> int:
    from .flux_lab import FluxUnavailable, find_flux
    from .regenerate import SampleError, regenerate
    from .sshd_hosts import sshd_unavailable_reason

    started = time.monotonic()
    try:
        wants_flux = not args.only or any(o.startswith("flux") for o in args.only)
        if wants_flux:
            find_flux(create=True)
        wants_lyftdata = not args.only or any(o.startswith("lyftdata") for o in args.only)
        reason = sshd_unavailable_reason() if wants_lyftdata else None
        if reason:
            raise SampleError(f"LyftData samples are collected over SSH: {reason}")
        entries = regenerate(args.only)
    except (SampleError, FluxUnavailable) as exc:
        print(f"samples: error: {exc} (nothing was replaced)", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("samples: interrupted (nothing was replaced)", file=sys.stderr)
        return 130
    minutes = (time.monotonic() - started) / 60
    total = sum(e.size_bytes for e in entries) / 1024
    print(f"regenerated {counted(len(entries), 'sample')}, {total:.0f} KiB, in {minutes:.1f} min")
    print(f"catalog: {catalog.CATALOG_PATH}\ntable:   {catalog.README_PATH}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m samples",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("list", help="print the samples table").set_defaults(func=cmd_list)
    regen = sub.add_parser("regenerate", help="rebuild sample bundles from real runs")
    regen.add_argument(
        "--only",
        action="append",
        metavar="NAME",
        help="a sample (file name without .zip) or a product (flux, lyftdata); repeatable",
    )
    regen.set_defaults(func=cmd_regenerate)
    args = parser.parse_args(argv)
    result: int = args.func(args)
    return result


if __name__ == "__main__":
    sys.exit(main())
