#!/usr/bin/env bash
# Device run 139: the final build under the sanitizers (memcheck and racecheck over the MACKO
# properties, 20 cases each, and the CSR properties), then row_stream_il after its merge into the
# one row_stream launcher (53f0a5e) beside read / row_stream / MACKO on the two d = 0.3 misses.
bash scripts/device_run.sh \
  run memcheck "RC_PARAMS=max_success=20 timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 macko_spmv_gpu_props '~[large]'" \
  run racecheck "RC_PARAMS=max_success=20 timeout 150 compute-sanitizer --tool racecheck --error-exitcode 9 macko_spmv_gpu_props '~[large]'" \
  run csr_props "RC_PARAMS=max_success=100 timeout 60 csr_spmv_gpu_props" \
  bench_macko "--shapes 21504x7168,32000x5120,12288x12288 --densities 0.5,0.3 --patterns none --kernels read,row_stream,row_stream_il,macko,cublas_gemv,copy"
