#!/usr/bin/env bash
# Device run 64: issue 5's table in both power states, on the committed benchmark (48cfb5c + the
# x_swizzle rule, which touches no 2:4 code). The quick set (cubes and three Appendix D weights x 16,
# 512, 4096 tokens) back to back with the method's counts (sustained), then the same rested: 3 s idle
# before each kernel and a 10 + 50 series (the state the reference numbers were taken in).
T="--ws-tiles tall_pipe,hopper_tall_store"
bash scripts/device_run.sh \
  bench_sparse24 "--quick $T" \
  bench_sparse24 "--quick $T --rest-ms 3000 --warmup 10 --iters 50"
