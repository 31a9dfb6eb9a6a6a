#!/usr/bin/env bash
# Sets up, builds and runs every test. GPU tests (label gpu) run when a GPU is present and are
# reported as skipped otherwise. Then the readers are fuzzed for a minute each (libFuzzer, from the
# committed corpus) and the host code is rebuilt under ASan + UBSan to run the CPU tests, the CLI
# error tests among them. WS_QUICK=1 runs the first part only.
# Usage: scripts/test.sh [extra ctest args for the release tests]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cmake --preset release >/dev/null
cmake --build --preset release -j"$(nproc)"
ctest --preset release -j"$(nproc)" "$@"
[ "${WS_QUICK:-0}" = 1 ] && exit 0
scripts/fuzz.sh 60
cmake --preset asan >/dev/null
cmake --build --preset asan -j"$(nproc)"
ctest --preset asan -j"$(nproc)" -L cpu
