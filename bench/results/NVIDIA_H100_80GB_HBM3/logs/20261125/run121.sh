#!/usr/bin/env bash
# Device run 121: Nsight Compute on the final build (run 119's binaries) for the two d = 0.3 cases
# nearest the target, as run 109 profiled them before this session's kernels.
bash scripts/device_run.sh ncu "--shapes 21504x7168,32000x5120 --densities 0.3 --threads 16"
