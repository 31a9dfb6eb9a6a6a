#!/usr/bin/env bash
# Device run 30: SASS-level stall samples (Nsight Compute source page) of the mma.sp tall_pipe
# kernel at 8192^3 and of MACKO at d = 0.1 (12288^2, default 4-element schedule), for the next
# tuning steps.
bash scripts/device_run.sh \
  run ncu_s24 "ncu --clock-control none --set full --import-source yes -k regex:pipelined -s 2 -c 1 -o \$OUT/s24 ws_bench_sparse24 --sizes 8192x8192x8192 --weights none --kernels warpsparse --ws-tiles tall_pipe --warmup 2 --iters 1 --no-search --out \$OUT/r24 > \$OUT/ncu_s24_run.log 2>&1; ncu --import \$OUT/s24.ncu-rep --page source --csv --print-source sass > \$OUT/s24_source.csv 2>&1; rm -f \$OUT/s24.ncu-rep; wc -l \$OUT/s24_source.csv" \
  run ncu_macko "ncu --clock-control none --set full --import-source yes -k regex:macko -s 2 -c 1 -o \$OUT/mk ws_bench_macko --kernels macko --patterns none --warmup 1 --iters 1 --shapes 12288x12288 --densities 0.1 --threads 16 --out \$OUT/rmk > \$OUT/ncu_mk_run.log 2>&1; ncu --import \$OUT/mk.ncu-rep --page source --csv --print-source sass > \$OUT/mk_source.csv 2>&1; rm -f \$OUT/mk.ncu-rep; wc -l \$OUT/mk_source.csv"
