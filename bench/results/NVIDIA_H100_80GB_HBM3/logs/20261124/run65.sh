#!/usr/bin/env bash
# Device run 65: N:M rows where the default keeps x in L1 (tall shapes wider than 9216 columns, and
# tall shapes whose rows hold < 2048 nonzeros). Would x in shared memory, swizzled by the rule,
# beat x through L1 there? --x-shared 0,1 x --warps-per-block 4,16 on 2:4, 4:8 and uniform rows at
# d = 0.5 (the swizzle follows the rule: on for N:M rows with x in shared memory).
bash scripts/device_run.sh \
  bench_macko "--shapes 36864x12288,49152x12288,20480x3584,18944x3584 --densities 0.5 --patterns 2:4,4:8 --pattern-shapes 36864x12288,49152x12288,20480x3584,18944x3584 --kernels cublas_gemv,macko --x-shared 0,1 --warps-per-block 4,16"
