#!/usr/bin/env bash
# Device run 136 (experiment): units dealt warp-major over every resident block (WS_MACKO_WARP_MAJOR;
# ws_bench_macko_wm and macko_spmv_gpu_props_wm from scripts/stage_device.sh -DWS_MACKO_WM_EXPERIMENT=ON).
# Balanced rounds (runs 94-96) give every warp the same rows, but on 21504x7168 with 12-warp blocks
# 95 SMs then hold 36 warps x 5 rows (180 rows) and 37 hold 24 warps (120). With every resident block
# and units dealt warp-major, the warps with a fifth row are spread over all blocks: every SM holds
# 36 warps and 162-165 rows, and in the last round about half of each SM's warps still run.
# Prediction: up to 1-2 % on 21504x7168 at d = 0.3 (run 126: 3-warp blocks, 165 rows on the busiest
# SM, +2 %); losses where the last round is nearly empty (28672 rows: 6.03 rounds), which balanced
# rounds fixed.
# Properties of the warp-major build, then base / wm / base on the 7 tall shapes and 12288^2 at
# d = 0.5 / 0.3 / 0.2, 4- and 12-warp blocks.
S=28672x8192,21504x7168,32000x5120,32000x8192,28672x7168,27648x9216,36864x9216,12288x12288
A="--threads 16 --densities 0.5,0.3,0.2 --patterns none --kernels macko --shapes $S --warps-per-block 4,12"
bash scripts/device_run.sh \
  run props_wm "RC_PARAMS=max_success=30 timeout 100 macko_spmv_gpu_props_wm '~[large]'" \
  run base1 "timeout 100 ws_bench_macko $A --out \$OUT/r_base1" \
  run wm "timeout 100 ws_bench_macko_wm $A --out \$OUT/r_wm" \
  run base2 "timeout 100 ws_bench_macko $A --out \$OUT/r_base2"
