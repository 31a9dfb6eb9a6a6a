#!/usr/bin/env bash
# Device run 116 (experiments, after run 115): where fp32 x in shared memory on 12-warp blocks
# pays, and whether cutting the same 8 instructions per step without it pays as much.
# - ws_bench_macko_pair: run 115's ws_bench_macko (interior_pair), the reference here.
# - ws_bench_macko_addr2: that, and the x gathers of 16-bit x in shared memory at doubled prefix
#   bytes (one PRMT and one IADD per gather address instead of PRMT, IADD and LEA).
# - ws_bench_macko_xf32: interior_pair and x as fp32 in shared memory (WS_MACKO_XF32), its gathers
#   from an opaque shared address (PRMT and LEA per address); run 115's form lost 6-11 % on 4-warp
#   blocks of 7168-9216 columns (7 blocks per SM fit instead of 9) and won 0.5-4.6 % at d = 0.3 on
#   12-warp blocks.
BIG=12288x12288,28672x8192,8192x28672,36864x12288,21504x7168,32000x5120,7168x28672,9216x36864,8192x29568,32000x8192,28672x7168,27648x9216,36864x9216,49152x12288,12288x49152
TALL=28672x8192,21504x7168,32000x5120,32000x8192,28672x7168,27648x9216,36864x9216
A="--threads 16 --densities 0.5,0.3,0.1 --patterns none --kernels macko --shapes $BIG"
W="--threads 16 --densities 0.5,0.4,0.3,0.2,0.1 --patterns none --kernels macko --shapes $TALL --warps-per-block 12"
bash scripts/device_run.sh \
  run pair "timeout 110 ws_bench_macko_pair $A --out \$OUT/r_pair" \
  run addr2 "timeout 110 ws_bench_macko_addr2 $A --out \$OUT/r_addr2" \
  run xf32w12 "timeout 85 ws_bench_macko_xf32 $W --out \$OUT/r_xf32w12" \
  run pairw12 "timeout 85 ws_bench_macko_pair $W --out \$OUT/r_pairw12" \
  run addr2w12 "timeout 85 ws_bench_macko_addr2 $W --out \$OUT/r_addr2w12"
