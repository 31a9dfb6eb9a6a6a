#!/usr/bin/env bash
# Device run 141: the MACKO GPU test past 2^31 stored elements ([large]: the wide, 64-bit-offset
# kernels against their warp model) on the final build. It last ran in run 108, before the
# fifteenth session's kernels.
bash scripts/device_run.sh \
  run props_large "RC_PARAMS=max_success=20 timeout 400 macko_spmv_gpu_props '[large]'"
