#!/usr/bin/env bash
# Device run 118: run 117's build with its two failed default-schedule assertions mended (the
# tests expected the old blocks; no kernel output was wrong), and the error of x_f32 named. MACKO
# properties; x_f32 against the 16-bit copy on the new kernels at d = 0.35 / 0.3 / 0.25 / 0.1 on
# the tall shapes (4- and 12-warp blocks each way); compute-sanitizer memcheck and racecheck over
# the MACKO properties (20 cases, every test but [large]).
TALL=28672x8192,21504x7168,32000x5120,32000x8192,28672x7168,27648x9216,36864x9216
R="--threads 16 --densities 0.35,0.3,0.25,0.1 --patterns none --kernels macko --shapes $TALL --warps-per-block 4,12 --x-f32 0,1"
bash scripts/device_run.sh \
  run props "RC_PARAMS=max_success=150 timeout 100 macko_spmv_gpu_props '~[large]'" \
  run rule "timeout 120 ws_bench_macko $R --out \$OUT/r_rule" \
  run memcheck "RC_PARAMS=max_success=20 timeout 170 compute-sanitizer --tool memcheck --error-exitcode 9 macko_spmv_gpu_props '~[large]'" \
  run racecheck "RC_PARAMS=max_success=20 timeout 170 compute-sanitizer --tool racecheck --error-exitcode 9 macko_spmv_gpu_props '~[large]'"
