#!/usr/bin/env bash
# Device run 102: every GPU test program on the final kernels (d158789, whose kernel and launch code
# are d4e480e's): MACKO properties at 1000 cases with the [large] test past 2^31 stored elements,
# CSR properties, the 2:4 GEMM test.
bash scripts/device_run.sh tests
