#!/usr/bin/env bash
# The main job: set up, build, encode a generated matrix and verify it with the warp model,
# build the analysis reports, and, when a GPU is present, run the GPU tests and the quick
# benchmark (results under bench/results/<gpu>/). Works without a GPU.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cmake --preset release >/dev/null
cmake --build --preset release -j"$(nproc)"
B=build/release
echo; echo "== demo: encode a generated matrix, verify it with the warp model"
$B/tools/warpsparse/warpsparse demo
echo; echo "== reports (analysis notebooks)"
$B/tools/warpsparse/warpsparse report --out reports
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
  echo; echo "== GPU present: GPU property tests and the quick benchmarks"
  ctest --test-dir $B -L gpu --output-on-failure
  gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | tr ' ' '_')
  mkdir -p "bench/results/$gpu"
  for b in $B/bench/ws_bench_macko $B/bench/ws_bench_sparse24; do
    [ -x "$b" ] && "$b" --quick --out "bench/results/$gpu"
  done
  $B/tools/warpsparse/warpsparse report --out reports
else
  echo; echo "== no GPU: GPU tests and benchmarks skipped (bench/results/ holds earlier device runs)"
fi
echo; echo "Reports: $(pwd)/reports/index.html"
