#!/usr/bin/env bash
# Device run 72b: the same-run A/B of 32-bit element offsets: base (0b1f426) and new binaries
# alternately, twice, over the 15 big shapes at d = 0.5 / 0.3 / 0.1, default schedules.
BIG=12288x12288,28672x8192,8192x28672,36864x12288,21504x7168,32000x5120,7168x28672,9216x36864,8192x29568,32000x8192,28672x7168,27648x9216,36864x9216,49152x12288,12288x49152
ARGS="--threads 16 --shapes $BIG --densities 0.5,0.3,0.1 --patterns none --kernels cublas_gemv,macko"
bash scripts/device_run.sh \
  run base1 ".devpkg_base/bin/ws_bench_macko --out \$OUT/base1 $ARGS" \
  run new1 "ws_bench_macko --out \$OUT/new1 $ARGS" \
  run base2 ".devpkg_base/bin/ws_bench_macko --out \$OUT/base2 $ARGS" \
  run new2 "ws_bench_macko --out \$OUT/new2 $ARGS"
