#!/usr/bin/env bash
# Device run 67: why do 2:4 rows (swizzled x) run 5-9 % faster than uniform rows of the same bytes
# on the tall shapes (run 66: 21504x7168 72.7 against 76.6 us)? Nsight Compute on both, one launch
# each after a warm-up, the default schedules (x in shared memory, 4-warp blocks).
M=smsp__inst_executed.sum,smsp__cycles_active.avg,sm__warps_active.avg.pct_of_peak_sustained_active,dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,gpu__time_duration.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,smsp__average_warp_latency_issue_stalled_short_scoreboard.ratio,smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio,smsp__average_warp_latency_issue_stalled_barrier.ratio,smsp__warp_issue_stalled_short_scoreboard_per_warp_active.pct,smsp__warp_issue_stalled_long_scoreboard_per_warp_active.pct,smsp__warp_issue_stalled_mio_throttle_per_warp_active.pct,smsp__warp_issue_stalled_lg_throttle_per_warp_active.pct,lts__t_sectors_srcunit_tex_op_read.sum,smsp__thread_inst_executed_per_inst_executed.ratio
B="ws_bench_macko --out \$OUT/ncu_results --shapes 21504x7168 --densities 0.5 --pattern-shapes 21504x7168 --kernels macko --warmup 3 --iters 1"
# Each case launches MACKO 5 times (check, 3 warm-up, 1 timed): -s 3 profiles the uniform case's
# last warm-up, -s 8 the 2:4 case's (it follows the uniform one).
bash scripts/device_run.sh \
  run ncu_uniform "ncu --clock-control none --metrics $M -k regex:macko -s 3 -c 1 $B --patterns none" \
  run ncu_24 "ncu --clock-control none --metrics $M -k regex:macko -s 8 -c 1 $B --patterns 2:4"
# (Result: run67_ncu_*.log; kernels/NOTES.md, runs 67-69.)
