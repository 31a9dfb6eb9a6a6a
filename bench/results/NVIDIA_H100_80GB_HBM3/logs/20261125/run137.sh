#!/usr/bin/env bash
# Device run 137 (experiment): the elements cut into one chunk per resident warp (Schedule::chunks).
# Runs 93-94 found the persistent grid's time following its rounds of rows (21504x7168 at d = 0.3:
# 4.53 rounds cost as much as 5), and each warp held by its own latency. With chunks every warp
# walks the same elements (rows that cross a boundary are walked in parts, added by their last
# warp), so no round is part-empty. Prediction: up to ~3 % where the last round is part-full
# (run 93: whole rounds ran 3-4 % closer to a plain read at 7168 columns), about 0 elsewhere.
# The chunked kernels' properties (bit-exact against the warp model) and memcheck over them, then the
# 15 big shapes at d = 0.5 / 0.3, default schedule against the same with --chunks -1, twice in
# opposite orders.
S=12288x12288,28672x8192,8192x28672,36864x12288,21504x7168,32000x5120,7168x28672,9216x36864,8192x29568,32000x8192,28672x7168,27648x9216,36864x9216,49152x12288,12288x49152
A="--threads 16 --densities 0.5,0.3 --patterns none --kernels macko --shapes $S"
bash scripts/device_run.sh \
  run regs "cuobjdump --dump-resource-usage .devpkg/bin/ws_bench_macko | grep -A1 'macko_spmv_xs_kernel' | paste - - | grep -o 'KernelConfigILi4ELi1ELi2ELb0ELb1ELi8ELi1ELb1ELi1ELb0ELi32ELb.E.*REG:[0-9]*' | sed 's/IJ.*REG/ REG/' | sort | uniq -c" \
  run props_chunks "RC_PARAMS=max_success=200 timeout 110 macko_spmv_gpu_props 'MACKO kernel cut into chunks*'" \
  run memcheck_chunks "RC_PARAMS=max_success=10 timeout 90 compute-sanitizer --tool memcheck --error-exitcode 9 macko_spmv_gpu_props 'MACKO kernel cut into chunks*'" \
  run bench_a "timeout 170 ws_bench_macko $A --chunks 0,-1 --out \$OUT/r_a" \
  run bench_b "timeout 170 ws_bench_macko $A --chunks -1,0 --out \$OUT/r_b"
