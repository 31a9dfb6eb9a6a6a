#!/usr/bin/env bash
# Device run 86: whole-group interior path (compute_group runs a group that lies inside its row as
# one branch-free block, so a step's scan may overlap the previous step's gathers; FMAs in the same
# order). Properties (300), memcheck and racecheck (20 each); the SASS of the default kernels, new and
# base; the 15 big shapes at d = 0.5 / 0.3 / 0.1, default schedules, base (7b91883) then new then
# base again (drift check).
BIG=12288x12288,28672x8192,8192x28672,36864x12288,21504x7168,32000x5120,7168x28672,9216x36864,8192x29568,32000x8192,28672x7168,27648x9216,36864x9216,49152x12288,12288x49152
A="--threads 16 --shapes $BIG --densities 0.5,0.3,0.1 --patterns none --kernels cublas_gemv,macko,copy"
bash scripts/device_run.sh \
  run props "RC_PARAMS=max_success=300 macko_spmv_gpu_props" \
  run memcheck "RC_PARAMS=max_success=20 compute-sanitizer --tool memcheck --error-exitcode 9 macko_spmv_gpu_props '~[large]'" \
  run racecheck "RC_PARAMS=max_success=20 compute-sanitizer --tool racecheck --error-exitcode 9 macko_spmv_gpu_props '~[large]'" \
  run sass "bash bench/results/NVIDIA_H100_80GB_HBM3/logs/20261124/run86_sass.sh" \
  run base "ws_bench_macko_base --out \$OUT/results_base $A" \
  run new "ws_bench_macko --out \$OUT/results_new $A" \
  run base2 "ws_bench_macko_base --out \$OUT/results_base2 $A"
