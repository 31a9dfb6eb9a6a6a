#!/usr/bin/env bash
# Device run 20: MACKO cp.async rings in shared memory (Schedule::smem_stages) and the L2::256B hint
# (second binary ws_bench_macko_l2, built with -DWS_MACKO_L2_256B): properties, sanitizers, sweeps.
TALL=12288x12288,28672x8192,36864x12288
WIDE=7168x28672,12288x49152
bash scripts/device_run.sh \
  run regs "cuobjdump --dump-resource-usage .devpkg/bin/ws_bench_macko | grep -A1 macko_spmv_kernel > \$OUT/regs.txt; wc -l \$OUT/regs.txt" \
  run props "RC_PARAMS=max_success=500 timeout 200 macko_spmv_gpu_props" \
  bench_macko "--shapes $TALL --densities 0.5,0.3,0.1,1.0 --patterns none --kernels cublas_gemv,macko,copy --unroll-blocks 1,2 --smem-stages 0,3,4,6 --lane-elems 4,8" \
  bench_macko "--shapes $WIDE --densities 0.5,0.3,1.0 --patterns none --kernels cublas_gemv,macko,copy --warps-per-block 4,8 --row-splits 1,2 --smem-stages 0,4" \
  run l2hint "ws_bench_macko_l2 --threads 16 --out \$OUT/results_l2 --shapes $TALL --densities 0.5,0.3 --patterns none --kernels cublas_gemv,macko,copy --smem-stages 0,4"
