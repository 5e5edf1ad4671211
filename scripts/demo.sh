#!/usr/bin/env bash
# The main job on a built-in default, in one command: set up (scripts/setup.sh), then start a
# real Flux server and two workers, hang one until Flux evicts it, collect a support bundle with
# `bundler doctor`, and show `bundler analyze` and `bundler review` on it. Without Flux (no
# Python 3.12, no network for pip) it says why and uses the LyftData simulator instead.
# Every process it starts is stopped, also on Ctrl-C. A few minutes at most; ~30 s once set up.
#
#   scripts/demo.sh                      # bundle and password end up in demo-output/
#   scripts/demo.sh --product lyftdata   # the LyftData simulator directly
#   scripts/demo.sh --out DIR            # elsewhere
set -euo pipefail
cd "$(dirname "$0")/.."
# Flux is optional for the demo: if it cannot be installed, the demo falls back (and says why).
BUNDLER_FLUX_OPTIONAL=1 scripts/setup.sh
export BUNDLER_FLUX_VENV="${BUNDLER_FLUX_VENV:-$PWD/.cache/flux-venv}"
exec .venv/bin/python -m samples.demo "$@"
