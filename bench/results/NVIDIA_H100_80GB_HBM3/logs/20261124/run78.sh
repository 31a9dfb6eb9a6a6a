#!/usr/bin/env bash
# Device run 78 (9b08101's kernels; the later commits change host text and the CLI only): an
# out-of-sample check of the low-density rule, which was read off d = 0.1 / 0.05 (run 72d): the
# same eight schedules on all 31 Appendix D shapes at d = 0.15 and 0.07.
bash scripts/device_run.sh \
  run lowd2 "ws_bench_macko --out \$OUT/lowd2 --threads 16 --shapes paper --densities 0.15,0.07 --patterns none --kernels cublas_gemv,macko --x-shared 0,1 --warps-per-block 4,16 --lane-elems 4,8"
