#!/usr/bin/env bash
# Device run 140 (experiment): 42 warps per SM instead of 36, so that the persistent grid needs one
# round of rows fewer. Under 48 registers (ws_bench_macko_r48, macko_spmv_gpu_props_r48: the same
# source built with -maxrregcount=48 in build/exp48) blocks of 7, 14 or 21 warps fit 42 warps per SM
# with x in shared memory (6 / 3 / 2 copies of x): 5544 warps, so 21504 rows take 4 rounds instead of
# 5 (4301 warps x 5 now), 32000 rows 6 instead of 7, 27648 rows 5 instead of 6. Run 90 capped the
# registers at 48 with 4-warp blocks (40 warps, 5280: still 5 rounds on 21504 rows, before balanced
# rounds) and lost 1.2 % on average. Prediction: a few % on 21504x7168 at d = 0.3 if the time follows
# the rounds (run 93: whole rounds ran 3-4 % closer to a read), losses where the rounds do not change
# (the cap's spills). Properties of the capped build (30 cases), then base (default schedule) /
# capped at 4 / 7 / 14 / 21 warps per block / base, 8 shapes at d = 0.5 / 0.3.
S=21504x7168,32000x5120,28672x7168,28672x8192,32000x8192,27648x9216,36864x9216,12288x12288
A="--threads 16 --densities 0.5,0.3 --patterns none --kernels macko --shapes $S"
bash scripts/device_run.sh \
  run props_r48 "RC_PARAMS=max_success=30 timeout 100 macko_spmv_gpu_props_r48 '~[large]'" \
  run base1 "timeout 60 ws_bench_macko $A --out \$OUT/r_base1" \
  run r48 "timeout 170 ws_bench_macko_r48 $A --warps-per-block 4,7,14,21 --out \$OUT/r_r48" \
  run base2 "timeout 60 ws_bench_macko $A --out \$OUT/r_base2"
