#!/usr/bin/env bash
# Device run 94 (experiment): balanced rounds on the persistent grids. Base: fa80eb7's ws_bench_macko;
# new (ws_bench_macko_bal): the same kernels, launched with the fewest blocks that need as many
# rounds (every warp gets the same number of rows, one less at most). Order base / new / base over
# the 15 big Appendix D shapes at d = 0.5 / 0.3 and run 93's 7168-column row series at d = 0.3;
# 32000x5120 and 28672x7168 also on a persistent grid of 9 blocks per SM (x through L1).
BIG=12288x12288,28672x8192,8192x28672,36864x12288,21504x7168,32000x5120,7168x28672,9216x36864,8192x29568,32000x8192,28672x7168,27648x9216,36864x9216,49152x12288,12288x49152
S7=19008x7168,20196x7168,22572x7168,23760x7168
A="--densities 0.5,0.3 --patterns none"
ab() {  # name, extra args
  bash scripts/device_run.sh \
    run "$1_base" "ws_bench_macko --out \$OUT/r --kernels macko $2" \
    run "$1_bal" "ws_bench_macko_bal --out \$OUT/r --kernels macko,cublas_gemv $2" \
    run "$1_base2" "ws_bench_macko --out \$OUT/r --kernels macko $2"
}
OUTROOT=${OUT:-$PWD/device_out}
OUT=$OUTROOT/big ab big "--shapes $BIG $A"
OUT=$OUTROOT/s7 ab s7 "--shapes $S7 --densities 0.3 --patterns none"
OUT=$OUTROOT/bpsm ab bpsm "--shapes 32000x5120,28672x7168 --densities 0.3 --patterns none --blocks-per-sm 9"
