#!/usr/bin/env bash
# Device run 27: MACKO's own loads with 1, 2 and 4 groups in flight (row_stream, row_stream2,
# row_stream4) beside the coalesced read, the copy and MACKO: is the access pattern's cost latency?
bash scripts/device_run.sh \
  bench_macko "--shapes 12288x12288,28672x8192,36864x12288,7168x28672 --densities 0.5,0.3,0.1 --patterns none --kernels macko,copy,read,row_stream,row_stream2,row_stream4"
