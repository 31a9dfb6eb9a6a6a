#!/usr/bin/env bash
# Device run 133: does a block-interleaved layout change the cost of MACKO's access pattern?
# row_stream (MACKO's loads, one warp per row, one group in flight, values and deltas from their two
# arrays) against row_stream_il (the same loads from one buffer where each 256-element block's 512 value
# bytes are followed by its 128 delta bytes, so a group is one contiguous 1280-byte range), with the
# coalesced read and MACKO itself, on the 15 big shapes at d = 0.5 / 0.3 / 0.1.
# Prediction: if the split into a 1024-byte and a 256-byte range per group costs DRAM efficiency,
# row_stream_il sits between row_stream and read (run 111: 44.6 / 41.6 us on 21504x7168 at d = 0.3).
BIG=12288x12288,28672x8192,8192x28672,36864x12288,21504x7168,32000x5120,7168x28672,9216x36864,8192x29568,32000x8192,28672x7168,27648x9216,36864x9216,49152x12288,12288x49152
bash scripts/device_run.sh \
  run streams "timeout 400 ws_bench_macko --threads 16 --densities 0.5,0.3,0.1 --patterns none --kernels read,row_stream,row_stream_il,macko --shapes $BIG --out \$OUT/r_streams"
