#!/usr/bin/env bash
# Device run 72c: (1) why the wide 8192-row shapes at d = 0.1 lost 8 % with 32-bit offsets in
# run 72b: the x-in-shared-memory schedules around the default, base and new binaries;
# (2) schedules around the default on the two tall shapes that still miss (new binary).
A1="--threads 16 --shapes 8192x28672,8192x29568,7168x28672,9216x36864 --densities 0.1 --patterns none --kernels cublas_gemv,macko --x-shared 1 --warps-per-block 8,16,32 --lane-elems 4,8"
A2="--threads 16 --shapes 21504x7168,32000x5120 --densities 0.3,0.1 --patterns none --kernels cublas_gemv,macko --x-shared 0,1 --warps-per-block 4,8,16 --lane-elems 4,8"
bash scripts/device_run.sh \
  run wide_base ".devpkg_base/bin/ws_bench_macko --out \$OUT/wide_base $A1" \
  run wide_new "ws_bench_macko --out \$OUT/wide_new $A1" \
  run tall_new "ws_bench_macko --out \$OUT/tall_new $A2"
