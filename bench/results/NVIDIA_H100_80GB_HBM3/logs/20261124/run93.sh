#!/usr/bin/env bash
# Device run 93 (experiment, binaries of fa80eb7): does the persistent grid's last, part-full round
# of rows cost what its arithmetic says? 21504x7168 (x in shared memory, 9 blocks of 4 warps per SM:
# 4752 rows held, 4.53 rounds) and 32000x5120 (x through L1, 6.73 rounds) at d = 0.3 / 0.5, beside
# the same columns with whole rounds (19008, 23760; 28512, 33264 rows) and halfway rows.
# If the last round runs at the per-warp speed of a full one, time steps with rounds instead of
# growing with rows.
S7=19008x7168,20196x7168,21504x7168,22572x7168,23760x7168
S5=28512x5120,30888x5120,32000x5120,33264x5120
bash scripts/device_run.sh \
  bench_macko "--shapes $S7,$S5 --densities 0.3,0.5 --patterns none --kernels macko,read,row_stream"
