#!/usr/bin/env bash
# The main job. Sets up (apt), builds, encodes a generated matrix and verifies it with the warp
# model, and builds the analysis reports. With a GPU it also runs the GPU property tests and the
# quick benchmarks (results under results_local/<gpu>/, compared with the accepted ones in
# bench/results and drawn by the reports).
# Without a GPU it builds host code only (the `host` preset), which is much faster.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
  gpu=1; preset=release
else
  gpu=0; preset=host
fi
cmake --preset $preset >/dev/null
cmake --build --preset $preset -j"$(nproc)"
B=build/$preset
echo; echo "== demo: generate, encode (MACKO fp16, 4-bit deltas), verify with the warp model"
$B/tools/warpsparse/warpsparse demo
results=bench/results
if [ $gpu = 1 ]; then
  echo; echo "== GPU: property tests (kernel == warp model, bit for bit) and quick benchmarks"
  ctest --test-dir $B -L gpu --output-on-failure
  results=results_local
  $B/bench/ws_bench_macko --quick --threads "$(nproc)" --out $results
  # Batches of 2, 4 and 8 vectors on one shape (notebook 5's batched section).
  $B/bench/ws_bench_macko --shapes 12288x12288 --densities 1.0,0.5,0.3,0.1 --patterns none --batch 1,2,4,8 \
    --kernels cublas_gemv,cusparse_csr,macko --threads "$(nproc)" --out $results
  # Each kernel warmed up for a second first, as the accepted 2:4 results were (bench/README.md).
  $B/bench/ws_bench_sparse24 --quick --ws-tiles auto,tall_pipe --warmup-ms 1000 --out $results
  echo; echo "== this GPU's results against the accepted ones (bench/results; a note where none exist)"
  for f in $results/*/*.csv; do $B/tools/warpsparse/warpsparse compare "$f" || true; done
else
  echo; echo "== no GPU: GPU tests and benchmarks skipped; the reports use the accepted results in bench/results/"
fi
if [ -d $B/python/warpsparse ]; then
  echo; echo "== Python: the same matrix kind from numpy (PYTHONPATH=$(pwd)/$B/python)"
  PYTHONPATH=$B/python /usr/bin/python3 -c '
import numpy as np, warpsparse as ws
W = ws.prune(np.random.default_rng(1).standard_normal((1024, 1024)).astype(np.float16), density=0.3)
r = ws.verify(ws.encode_macko(W, align_rows=True), batch=4)
print("warpsparse", ws.__version__, "verify:", "ok" if r["ok"] else "FAILED", "max error / bound", r["max_bound_ratio"])'
fi
echo; echo "== reports (analysis notebooks)"
$B/tools/warpsparse/warpsparse report --out reports --bench-results $results
echo; echo "Open $(pwd)/reports/index.html"
