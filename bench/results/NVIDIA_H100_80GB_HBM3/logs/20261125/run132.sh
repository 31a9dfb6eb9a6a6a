#!/usr/bin/env bash
# Device run 132 (experiment): the default x-in-shared-memory kernel streams its load groups through a
# cp.async ring in shared memory, D slots per warp, D - 1 groups ahead (WS_MACKO_RING; binaries
# ws_bench_macko_ringD and macko_spmv_gpu_props_ringD from scripts/stage_device.sh
# -DWS_MACKO_RING_EXPERIMENT=ON). The registers of the next group go (49 -> 44 at D = 2, 41 at D = 3:
# 42 warps per SM by registers instead of 36), the ring's shared memory comes beside x.
# Prediction: with groups in flight that no compute holds up, MACKO's time moves towards row_stream's
# (run 111: 44.6 against 50.5 us on 21504x7168 at d = 0.3); a few % on the tall shapes at d = 0.3.
# Properties of the D = 3 build (bits against the warp model), then base and ring timings, block sizes
# swept, on the 7 tall shapes, 12288^2 and 36864x12288 at d = 0.5 / 0.3.
S=28672x8192,21504x7168,32000x5120,32000x8192,28672x7168,27648x9216,36864x9216,12288x12288,36864x12288
A="--threads 16 --densities 0.5,0.3 --patterns none --kernels macko --shapes $S"
bash scripts/device_run.sh \
  run props_ring3 "RC_PARAMS=max_success=30 timeout 70 macko_spmv_gpu_props_ring3 '~[large]'" \
  run base1 "timeout 150 ws_bench_macko $A --warps-per-block 4,12,16 --out \$OUT/r_base1" \
  run ring3 "timeout 230 ws_bench_macko_ring3 $A --warps-per-block 4,6,12,14,16 --out \$OUT/r_ring3" \
  run ring2 "timeout 135 ws_bench_macko_ring2 $A --warps-per-block 6,12,14 --out \$OUT/r_ring2"
