#!/usr/bin/env bash
# Device run 128: run 127's binaries. racecheck over the MACKO properties (20 cases, every test but
# [large]; their random schedules now include 12 rows per block), the CSR properties, and the two
# d = 0.3 cases nearest the 2.3x line once more with cuBLAS in the same call (spread between calls).
bash scripts/device_run.sh \
  run racecheck "RC_PARAMS=max_success=20 timeout 280 compute-sanitizer --tool racecheck --error-exitcode 9 macko_spmv_gpu_props '~[large]'" \
  run csr_props "RC_PARAMS=max_success=100 timeout 60 csr_spmv_gpu_props" \
  bench_macko "--shapes 21504x7168,32000x5120 --densities 0.3 --patterns none --kernels cublas_gemv,macko,copy"
