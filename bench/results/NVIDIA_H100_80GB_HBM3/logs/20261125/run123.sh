#!/usr/bin/env bash
# Device run 123 (experiment): why run 122's multicast build lost. Its clusters of one (mc1, no
# multicast) lost most (-4.8 % on average), so the loss is in the mechanism, not the sharing. Split
# it: WS_MACKO_MC_MODE=plain launches the same kernel (bulk copy, mbarrier) without clusters;
# WS_MACKO_MC_MODE=full launches every resident cluster instead of balanced rounds (cluster
# placement). The launcher prints the grid it takes (# mc: ...). Properties of the multicast build
# (clusters of 2) with a longer limit than run 122 (which cut them at 60 s without a result), then
# base / plain / mc1 / mc2 full / mc2 / base on the 15 big shapes at d = 0.3.
BIG=12288x12288,28672x8192,8192x28672,36864x12288,21504x7168,32000x5120,7168x28672,9216x36864,8192x29568,32000x8192,28672x7168,27648x9216,36864x9216,49152x12288,12288x49152
A="--threads 16 --densities 0.3 --patterns none --kernels macko --shapes $BIG"
bash scripts/device_run.sh \
  run props_mc2 "WS_MACKO_MC_SIZE=2 RC_PARAMS=max_success=20 timeout 120 macko_spmv_gpu_props_mc '~[large]'" \
  run base1 "timeout 60 ws_bench_macko $A --out \$OUT/r_base1" \
  run plain "WS_MACKO_MC_SIZE=1 WS_MACKO_MC_MODE=plain timeout 60 ws_bench_macko_mc $A --out \$OUT/r_plain" \
  run mc1 "WS_MACKO_MC_SIZE=1 timeout 60 ws_bench_macko_mc $A --out \$OUT/r_mc1" \
  run mc2full "WS_MACKO_MC_SIZE=2 WS_MACKO_MC_MODE=full timeout 60 ws_bench_macko_mc $A --out \$OUT/r_mc2full" \
  run mc2 "WS_MACKO_MC_SIZE=2 timeout 60 ws_bench_macko_mc $A --out \$OUT/r_mc2" \
  run base2 "timeout 60 ws_bench_macko $A --out \$OUT/r_base2"
