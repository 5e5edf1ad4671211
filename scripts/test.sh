#!/usr/bin/env bash
# Run bundler's whole test suite (sets up first; see scripts/setup.sh). Extra args go to pytest.
# Exit status is pytest's: "no tests ran" (5) fails like any other failure.
# pytest runs one process per core (pytest-xdist), a test file per process at a time, so a
# file's module fixtures (a Flux fleet, a browser) start once; files go out in collection
# order (tests/conftest.py puts the long-running ones first), not xdist's most-tests-first,
# which left a three-test file of real Flux fleets for the end. BUNDLER_TEST_WORKERS=1 runs
# everything in one process.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
export BUNDLER_FLUX_VENV="${BUNDLER_FLUX_VENV:-$PWD/.cache/flux-venv}"
.venv/bin/python -m ruff check .
.venv/bin/python -m ruff format --check .
.venv/bin/python -m schemas --check
.venv/bin/python -m mypy  # [tool.mypy] in pyproject: bundler, redactors, schemas, samples, bench
.venv/bin/python -m mypy --strict schemas redactors
workers="${BUNDLER_TEST_WORKERS:-$(nproc)}"
if [ "$workers" -le 1 ]; then
  exec .venv/bin/python -m pytest "$@"
fi
exec .venv/bin/python -m pytest -n "$workers" --dist loadfile --no-loadscope-reorder "$@"
