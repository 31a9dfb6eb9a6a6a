#!/usr/bin/env bash
# Device run 122 (experiment): x's copy shared by a thread-block cluster. ws_bench_macko_mc and
# macko_spmv_gpu_props_mc are built with WS_MACKO_MC: the x-in-shared-memory kernels (one vector,
# unswizzled) run in clusters of WS_MACKO_MC_SIZE blocks; block r of a cluster issues one bulk copy
# of the r-th part of x, multicast to every block of the cluster, and the warps wait on an mbarrier
# instead of cp.async.wait_all + bar.sync. Prediction: each SM reads 9 copies of x from L2 at the
# start (about 16 MB per launch at 7168 columns); halving that should take up to ~1-2 us off the
# first row on the shapes whose time is nearest the 2.3x line.
# Properties of the multicast build (clusters of 2 and 4), then base / mc 2 / mc 4 / mc 1 / base on
# the 15 big shapes at d = 0.5 / 0.3 (default schedules, MACKO only).
BIG=12288x12288,28672x8192,8192x28672,36864x12288,21504x7168,32000x5120,7168x28672,9216x36864,8192x29568,32000x8192,28672x7168,27648x9216,36864x9216,49152x12288,12288x49152
A="--threads 16 --densities 0.5,0.3 --patterns none --kernels macko --shapes $BIG"
bash scripts/device_run.sh \
  run props_mc2 "WS_MACKO_MC_SIZE=2 RC_PARAMS=max_success=40 timeout 60 macko_spmv_gpu_props_mc '~[large]'" \
  run props_mc4 "WS_MACKO_MC_SIZE=4 RC_PARAMS=max_success=20 timeout 40 macko_spmv_gpu_props_mc '~[large]'" \
  run base1 "timeout 90 ws_bench_macko $A --out \$OUT/r_base1" \
  run mc2 "WS_MACKO_MC_SIZE=2 timeout 90 ws_bench_macko_mc $A --out \$OUT/r_mc2" \
  run mc4 "WS_MACKO_MC_SIZE=4 timeout 90 ws_bench_macko_mc $A --out \$OUT/r_mc4" \
  run mc1 "WS_MACKO_MC_SIZE=1 timeout 90 ws_bench_macko_mc $A --out \$OUT/r_mc1" \
  run base2 "timeout 90 ws_bench_macko $A --out \$OUT/r_base2"
