#!/usr/bin/env bash
# Device run 134d: part of issue 4's full sweep (ws_bench_macko --full: densities 1.0, 0.9 ... 0.1,
# 0.05, uniform exact-nnz rows, the other pattern families at d = 0.5 on the quick shapes, every
# baseline) on 6e8d8f8 (the kernels of the fifteenth session, the 12-warp rule of 7f86360), run 99's
# shape groups. The group of the three largest shapes ran past a 500 s limit in one step (first try,
# nothing returned), so it runs as two steps here: the archive is packed after each.
bash scripts/device_run.sh bench_macko "--full --shapes 36864x12288" bench_macko "--full --shapes 12288x49152,49152x12288"
