#!/usr/bin/env bash
# Device run 108: the MACKO GPU properties (200 cases, with the [large] test past 2^31 stored
# elements) on 1216740, where default_schedule's two x-in-shared-memory rules became one.
bash scripts/device_run.sh \
  run props "RC_PARAMS=max_success=200 timeout 400 macko_spmv_gpu_props"
