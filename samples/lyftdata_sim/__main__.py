"""Run the LyftData simulator: ``python -m samples.lyftdata_sim --scenario NAME --port 0``.

The first stdout line is the bound URL (``http://127.0.0.1:PORT`` or
``https://...``), so a fixture can start it with port 0 and read the port
back. With ``--hosts-dir DIR`` the scenario's worker hosts are prepared under
DIR (state directories, logs, stand-in tools; ``DIR/hosts.json`` lists them)
and, with TLS, ``DIR/tls/ca.pem`` is the CA a client must trust. Stops on
SIGTERM or Ctrl-C.
"""

from __future__ import annotations

import argparse
import signal
import sys
import tempfile
import threading
from pathlib import Path
from types import FrameType

from . import tls
from .hostprep import prepare_hosts
from .loader import load_scenario, scenario_names
from .scenario import ScenarioError
from .server import SimServer, SimState

DEFAULT_TOKEN = "sim-token"  # noqa: S105 (the simulator's own test token, not a secret)


def _parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m samples.lyftdata_sim", description=__doc__)
    parser.add_argument("--scenario", help="scenario name (see --list) or path to a YAML file")
    parser.add_argument("--list", action="store_true", help="list bundled scenarios and exit")
    parser.add_argument("--host", default="127.0.0.1", help="bind address (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=0, help="port (0: any free port)")
    parser.add_argument(
        "--reuse-address",
        action="store_true",
        help="take PORT back at once after a previous simulator on it stopped (one server URL "
        "for a before/after pair)",
    )
    parser.add_argument("--token", default=DEFAULT_TOKEN, help="bearer token accepted")
    parser.add_argument("--no-auth", action="store_true", help="accept requests without a token")
    parser.add_argument("--hosts-dir", type=Path, help="prepare the scenario's worker hosts here")
    parser.add_argument("--tls-dir", type=Path, help="where to write the CA and certificate")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = _parse(argv)
    if args.list:
        print("\n".join(scenario_names()))
        return 0
    if not args.scenario:
        print("lyftdata_sim: error: --scenario is required (see --list)", file=sys.stderr)
        return 2
    try:
        scenario = load_scenario(args.scenario)
    except ScenarioError as exc:
        print(f"lyftdata_sim: error: {exc}", file=sys.stderr)
        return 2
    token = None if args.no_auth else args.token
    state = SimState(scenario=scenario, name=Path(args.scenario).stem, token=token)
    try:
        server = SimServer((args.host, args.port), state, reuse_address=args.reuse_address)
    except OSError as exc:
        print(
            f"lyftdata_sim: error: cannot listen on {args.host}:{args.port}: {exc.strerror}",
            file=sys.stderr,
        )
        return 2
    scheme, ca_file = "http", None
    if scenario.server.tls:
        tls_dir = args.tls_dir or (args.hosts_dir / "tls" if args.hosts_dir else None)
        tls_dir = tls_dir or Path(tempfile.mkdtemp(prefix="lyftdata-sim-tls-"))
        files = tls.generate(tls_dir)
        server.socket = tls.server_context(files).wrap_socket(server.socket, server_side=True)
        scheme, ca_file = "https", files.ca_cert
    host, port = server.server_address[:2]
    host = host.decode() if isinstance(host, bytes | bytearray) else host
    url = f"{scheme}://{host}:{port}"
    if args.hosts_dir:
        prepare_hosts(
            scenario,
            args.hosts_dir,
            server_url=url,
            token=token,
            ca_file=ca_file,
            now=state.started,
        )
    print(url, flush=True)
    if ca_file:
        print(f"ca_file={ca_file}", flush=True)

    def stop(signum: int, frame: FrameType | None) -> None:
        threading.Thread(target=server.shutdown, daemon=True).start()

    signal.signal(signal.SIGTERM, stop)
    try:
        server.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
