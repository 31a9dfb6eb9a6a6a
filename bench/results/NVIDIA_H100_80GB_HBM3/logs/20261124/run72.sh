#!/usr/bin/env bash
# Device run 72: 32-bit element offsets in the narrow MACKO kernels (experiment on 0b1f426).
# Properties (300 cases), memcheck and racecheck (20 each) over the new kernels; the SASS
# instruction count of every MACKO kernel in the new binary and in the base one (.devpkg_base).
bash scripts/device_run.sh \
  run props "RC_PARAMS=max_success=300 macko_spmv_gpu_props" \
  run memcheck "RC_PARAMS=max_success=20 compute-sanitizer --tool memcheck --error-exitcode 9 macko_spmv_gpu_props" \
  run racecheck "RC_PARAMS=max_success=20 compute-sanitizer --tool racecheck --error-exitcode 9 macko_spmv_gpu_props" \
  run sass "bash bench/results/NVIDIA_H100_80GB_HBM3/logs/20261124/run72_sass.sh"
