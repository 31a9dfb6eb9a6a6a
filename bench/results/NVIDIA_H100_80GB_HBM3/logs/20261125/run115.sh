#!/usr/bin/env bash
# Device run 115 (experiments; two calls, run115.sh a and b): two cuts of the instructions per interior step, each measured
# against 41785ae's binary (ws_bench_macko_base) before and after.
# - ws_bench_macko: a whole group's two steps share one scan (interior_pair: both lane sums in the
#   halves of one word), 6 of 12 shuffles per group fewer; registers unchanged (51).
# - ws_bench_macko_xf32: that, and x in shared memory as fp32 (WS_MACKO_XF32; no conversion per
#   gather, 8 instructions per step fewer; 53 registers; twice the shared memory, so 4-warp blocks
#   of 7168-9216 columns fit 7 per SM instead of 9: also run with 12-warp blocks on the tall shapes).
BIG=12288x12288,28672x8192,8192x28672,36864x12288,21504x7168,32000x5120,7168x28672,9216x36864,8192x29568,32000x8192,28672x7168,27648x9216,36864x9216,49152x12288,12288x49152
TALL=28672x8192,21504x7168,32000x5120,32000x8192,28672x7168,27648x9216,36864x9216
A="--threads 16 --densities 0.5,0.3,0.1 --patterns none --kernels macko"
W="--threads 16 --shapes $TALL --densities 0.5,0.3 --patterns none --kernels macko --warps-per-block 12"
P="timeout 100 macko_spmv_gpu_props '~[large]'"
case ${1:-a} in
a) bash scripts/device_run.sh \
  run props "RC_PARAMS=max_success=100 $P" \
  run base1 "timeout 115 ws_bench_macko_base $A --shapes $BIG --out \$OUT/r_base1" \
  run pair "timeout 115 ws_bench_macko $A --shapes $BIG --out \$OUT/r_pair" \
  run xf32 "timeout 115 ws_bench_macko_xf32 $A --shapes $BIG --out \$OUT/r_xf32" ;;
b) bash scripts/device_run.sh \
  run xf32w12 "timeout 50 ws_bench_macko_xf32 $W --out \$OUT/r_xf32w12" \
  run basew12 "timeout 50 ws_bench_macko_base $W --out \$OUT/r_basew12" \
  run pair2 "timeout 115 ws_bench_macko $A --shapes $BIG --out \$OUT/r_pair2" \
  run base2 "timeout 115 ws_bench_macko_base $A --shapes $BIG --out \$OUT/r_base2" ;;
esac
