#!/usr/bin/env bash
# Device run 119: the final build (d09e081 without Schedule::x_f32: interior_pair, doubled-byte
# gathers, masked_step4; the kernels' PTX equals run 118's 16-bit kernels). Issue 4's table command
# (run 107's), the MACKO and CSR properties, and compute-sanitizer memcheck and racecheck over the
# MACKO properties (20 cases, every test but [large]).
BIG=12288x12288,28672x8192,8192x28672,36864x12288,21504x7168,32000x5120,7168x28672,9216x36864,8192x29568,32000x8192,28672x7168,27648x9216,36864x9216,49152x12288,12288x49152
bash scripts/device_run.sh \
  bench_macko "--shapes $BIG --densities 1.0,0.5,0.3,0.1 --patterns none --kernels cublas_gemv,cusparse_csr,macko,copy" \
  run props "RC_PARAMS=max_success=200 timeout 100 macko_spmv_gpu_props '~[large]'" \
  run csr_props "RC_PARAMS=max_success=100 timeout 40 csr_spmv_gpu_props" \
  run memcheck "RC_PARAMS=max_success=20 timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 macko_spmv_gpu_props '~[large]'" \
  run racecheck "RC_PARAMS=max_success=20 timeout 120 compute-sanitizer --tool racecheck --error-exitcode 9 macko_spmv_gpu_props '~[large]'"
