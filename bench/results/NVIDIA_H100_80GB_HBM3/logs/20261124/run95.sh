#!/usr/bin/env bash
# Device run 95 (experiment): bulk L2 prefetch ahead of each warp's loads. Base: run 94's balanced
# rounds binary (ws_bench_macko_bal); new: the same plus, per load group, one
# cp.async.bulk.prefetch.L2 of the group A elements further on in the warp's own range (values and
# deltas), and at the row start the first A elements after the first group (A = 1024 / 2048 / 4096;
# ws_bench_macko_l2_A). Bits are unchanged (a cache hint). Order: base, 1024, 2048, 4096, base.
SH=21504x7168,32000x5120,12288x12288,28672x7168,36864x12288,7168x28672
A="--shapes $SH --densities 0.5,0.3,0.1 --patterns none --kernels macko"
bash scripts/device_run.sh \
  run base "ws_bench_macko_bal --out \$OUT/r $A --kernels macko,cublas_gemv" \
  run l2_1024 "ws_bench_macko_l2_1024 --out \$OUT/r $A" \
  run l2_2048 "ws_bench_macko_l2_2048 --out \$OUT/r $A" \
  run l2_4096 "ws_bench_macko_l2_4096 --out \$OUT/r $A" \
  run base2 "ws_bench_macko_bal --out \$OUT/r $A"
