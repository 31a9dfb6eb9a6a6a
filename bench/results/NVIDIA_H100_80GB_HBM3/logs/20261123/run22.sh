#!/usr/bin/env bash
# Device run 22: Nsight Compute on MACKO at d = 0.5 and 0.1 (12288^2): what limits the low-density case.
bash scripts/device_run.sh \
  ncu "--shapes 12288x12288 --densities 0.5,0.1 --lane-elems 8,4"
