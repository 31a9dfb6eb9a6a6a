#!/usr/bin/env bash
# Device run 82: the default with the two-rows rule (kTwoRowsMaxNnz; kernels as run 80). Properties
# (300 cases, the rule's assertions included); the rule out of sample: the 13 tall Appendix D shapes
# of <= 9216 columns at d = 0.12 / 0.08 / 0.03 with eight schedules (x through L1 or in shared memory,
# 4 or 8 elements per lane, 32 or 16 lanes per row; 4-warp blocks); run 74's table command.
TALL=18944x3584,20480x3584,11008x4096,14336x4096,32000x4096,13824x5120,32000x5120,21504x7168,28672x7168,28672x8192,32000x8192,27648x9216,36864x9216
BIG=12288x12288,28672x8192,8192x28672,36864x12288,21504x7168,32000x5120,7168x28672,9216x36864,8192x29568,32000x8192,28672x7168,27648x9216,36864x9216,49152x12288,12288x49152
bash scripts/device_run.sh \
  run props "RC_PARAMS=max_success=300 macko_spmv_gpu_props" \
  run oos "ws_bench_macko --out \$OUT/oos --threads 16 --shapes $TALL --densities 0.12,0.08,0.03 --patterns none --kernels cublas_gemv,macko --x-shared 0,1 --lane-elems 4,8 --row-lanes 32,16 --warps-per-block 4" \
  bench_macko "--shapes $BIG --densities 1.0,0.5,0.3,0.1 --patterns none --kernels cublas_gemv,cusparse_csr,macko,copy"
