#!/usr/bin/env bash
# Device run 125: 0547c8c, 12-warp blocks on tall x_shared matrices above d = 0.15 where the
# busiest SM gets no more rows than with 4-warp blocks (macko::busiest_sm_units). The MACKO
# properties (100 cases: the rule's assertions, a default case on 12-warp blocks, random schedules
# with 12 rows per block), then base (5db3d47, ws_bench_macko_base) / new / base on the 7 tall
# Appendix D shapes of 5120-9216 columns at d = 1.0 / 0.7 / 0.5 / 0.3 / 0.2 (the rule's range; the
# 28672-row shapes keep 4-warp blocks and are the control).
TALL=28672x8192,21504x7168,32000x5120,32000x8192,28672x7168,27648x9216,36864x9216
A="--threads 16 --densities 1.0,0.7,0.5,0.3,0.2 --patterns none --kernels macko --shapes $TALL"
bash scripts/device_run.sh \
  run props "RC_PARAMS=max_success=100 timeout 170 macko_spmv_gpu_props '~[large]'" \
  run base1 "timeout 110 ws_bench_macko_base $A --out \$OUT/r_base1" \
  run new "timeout 110 ws_bench_macko $A --out \$OUT/r_new" \
  run base2 "timeout 110 ws_bench_macko_base $A --out \$OUT/r_base2"
