#!/usr/bin/env bash
# Device run 96: balanced rounds (the fewest persistent blocks that need as many rounds) as built
# for commit; base = fa80eb7's ws_bench_macko (ws_bench_macko_base). The issue-4 table (run 82's
# command) with the new binary between two base runs at d = 1.0 / 0.1 (the densities run 94 left
# out); the schedules around the two d = 0.3 misses; batches 2 / 4 / 8, base and new.
BIG=12288x12288,28672x8192,8192x28672,36864x12288,21504x7168,32000x5120,7168x28672,9216x36864,8192x29568,32000x8192,28672x7168,27648x9216,36864x9216,49152x12288,12288x49152
E="--shapes $BIG --densities 1.0,0.1 --patterns none --kernels macko"
B="--shapes 12288x12288,28672x8192,8192x28672 --densities 0.5,0.1 --batch 2,4,8 --patterns none --kernels cublas_gemv,macko"
bash scripts/device_run.sh \
  run ends_base "timeout 100 ws_bench_macko_base --threads 16 --out \$OUT/r_ends_base $E" \
  bench_macko "--shapes $BIG --densities 1.0,0.5,0.3,0.1 --patterns none --kernels cublas_gemv,cusparse_csr,macko,copy" \
  run ends_base2 "timeout 100 ws_bench_macko_base --threads 16 --out \$OUT/r_ends_base2 $E" \
  run sweep "timeout 100 ws_bench_macko --threads 16 --out \$OUT/r_sweep --shapes 21504x7168,32000x5120 --densities 0.3 --patterns none --kernels macko --x-shared 0,1 --warps-per-block 4,8" \
  run batch_base "timeout 100 ws_bench_macko_base --threads 16 --out \$OUT/r_batch_base $B" \
  run batch_new "timeout 100 ws_bench_macko --threads 16 --out \$OUT/r_batch_new $B"
