#!/usr/bin/env bash
# Sets up, builds and runs every test. GPU tests (label gpu) run when a GPU is present and are
# reported as skipped otherwise. Usage: scripts/test.sh [extra ctest args]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cmake --preset release >/dev/null
cmake --build --preset release -j"$(nproc)"
ctest --preset release -j"$(nproc)" "$@"
