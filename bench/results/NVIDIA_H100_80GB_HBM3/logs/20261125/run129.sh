#!/usr/bin/env bash
# Device run 129: Nsight Compute on the final build (run 127's binaries) for the two d = 0.3 cases
# nearest the target, now on their final schedules (12-warp blocks), as run 121 profiled them on
# 4-warp blocks.
bash scripts/device_run.sh ncu "--shapes 21504x7168,32000x5120 --densities 0.3 --threads 16"
