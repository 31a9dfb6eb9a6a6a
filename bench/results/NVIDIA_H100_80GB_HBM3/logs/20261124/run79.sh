#!/usr/bin/env bash
# Device run 79: properties (300 cases) on the review commit (batch-layout helpers, x_shared_warps_per_block).
bash scripts/device_run.sh run props "RC_PARAMS=max_success=300 macko_spmv_gpu_props"
