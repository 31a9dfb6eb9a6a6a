#!/usr/bin/env bash
# Device run 103: memcheck and racecheck (20 cases) over the MACKO and CSR GPU properties (every
# MACKO test but [large]) on d158789; then the narrow tall rule again with balanced rounds: the
# seven tall Appendix D shapes of < 7168 columns at d = 0.2 ... 0.5, x through L1 or in shared
# memory, a warp per row (4-warp blocks). Run 76 (before balanced rounds) kept the 2048-nonzero test
# because 32000x4096 and 32000x5120 tied or lost 0.2-1.4 % with x in shared memory.
TALL=11008x4096,13824x5120,14336x4096,18944x3584,20480x3584,32000x4096,32000x5120
bash scripts/device_run.sh \
  run memcheck_macko "RC_PARAMS=max_success=20 timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 macko_spmv_gpu_props '~[large]'" \
  run racecheck_macko "RC_PARAMS=max_success=20 timeout 120 compute-sanitizer --tool racecheck --error-exitcode 9 macko_spmv_gpu_props '~[large]'" \
  run memcheck_csr "RC_PARAMS=max_success=20 timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 csr_spmv_gpu_props" \
  run racecheck_csr "RC_PARAMS=max_success=20 timeout 60 compute-sanitizer --tool racecheck --error-exitcode 9 csr_spmv_gpu_props" \
  run tall "timeout 200 ws_bench_macko --threads 16 --out \$OUT/r_tall --shapes $TALL --densities 0.2,0.25,0.3,0.35,0.4,0.5 --patterns none --kernels macko --x-shared 0,1 --row-lanes 32 --lane-elems 8 --warps-per-block 4"
