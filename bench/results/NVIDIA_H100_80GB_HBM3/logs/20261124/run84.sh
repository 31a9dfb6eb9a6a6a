#!/usr/bin/env bash
# Device run 84: the MACKO test past 2^31 stored elements (tag [large]: 2.16e9 elements, 32-bit row
# pointers widened on upload, five batch-1 and three batch-2 schedules, every row against the warp model).
bash scripts/device_run.sh \
  run large "/usr/bin/time -v macko_spmv_gpu_props '[large]' --durations yes"
