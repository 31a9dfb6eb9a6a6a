#!/usr/bin/env bash
# Device run 75: properties (300 cases) with a new axis: 32-bit row pointers widened on upload
# (`upload_macko(a, narrow_max_elements = 0)`), the path a matrix of more than
# gpu::kNarrowMaxElements stored elements takes; memcheck over 20 cases.
bash scripts/device_run.sh \
  run props "RC_PARAMS=max_success=300 macko_spmv_gpu_props" \
  run memcheck "RC_PARAMS=max_success=20 compute-sanitizer --tool memcheck --error-exitcode 9 macko_spmv_gpu_props"
