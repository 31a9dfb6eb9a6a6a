#!/usr/bin/env bash
# Device run 120: the final build of run 119 (same .devpkg). Run 119 ran out of the call's time in
# racecheck, and its 200-case MACKO properties ran past their own 100 s limit (no failure; memcheck
# over every test at 20 cases passed). Racecheck again, the MACKO properties at 100 cases with more
# time, and the two d = 0.3 cases nearest the target once more (spread between runs).
bash scripts/device_run.sh \
  run racecheck "RC_PARAMS=max_success=20 timeout 200 compute-sanitizer --tool racecheck --error-exitcode 9 macko_spmv_gpu_props '~[large]'" \
  run props "RC_PARAMS=max_success=100 timeout 200 macko_spmv_gpu_props '~[large]'" \
  bench_macko "--shapes 21504x7168,32000x5120 --densities 0.3 --patterns none --kernels cublas_gemv,macko,copy"
