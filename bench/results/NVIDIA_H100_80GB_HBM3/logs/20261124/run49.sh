#!/usr/bin/env bash
# Device run 49: does run 47's disturbed case (12288^2, d = 0.3, x_shared 16 warps: p10 47.8 /
# median 82.3 / p90 128.0 us) recur? The same sweep three times, with the SM clock and the active
# throttle reasons sampled every 50 ms beside it.
S=12288x12288,7168x28672
bash scripts/device_run.sh \
  run clocks_and_sweeps "nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_throttle_reasons.active --format=csv -lms 50 > \$OUT/clocks.csv 2>&1 & SMI=\$!; for i in 1 2 3; do ws_bench_macko --out \$OUT/results --threads 16 --shapes $S --densities 1.0,0.5,0.3,0.1 --patterns none --kernels cublas_gemv,macko,copy --x-shared 1 --warps-per-block 16,32; done; kill \$SMI"
