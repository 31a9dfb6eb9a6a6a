#!/usr/bin/env bash
# Runs on the GPU machine (the device tool) over binaries built here and carried in .devpkg/:
# GPU property tests, compute-sanitizer (memcheck, racecheck), then benchmarks.
# Usage: scripts/device_run.sh [tests] [sanitize] [ncu "BENCH_MACKO_ARGS"] [bench_macko "ARGS"]
#        [bench_sparse24 "ARGS"] [python] [run NAME "COMMAND"] ...
#        (results under results/<gpu>/ inside $OUT/device_logs.tgz; `run` executes COMMAND with
#        .devpkg/bin first on PATH and keeps its output as NAME.log; `python` builds the extension
#        for $WS_PYTHON (default /opt/torch/.venv/bin/python) against the staged core, runs the Python
#        tests, GPU ones included, and the examples python/examples/{overhead,sparse_decoder}.py)
# Logs go to $OUT (or ./device_out when OUT is unset).
set -u
FINAL=${OUT:-$PWD/device_out}
# Everything is written to a work folder and packed into one archive at the end: the device tool
# returns at most 8 files.
OUT=$(mktemp -d)
mkdir -p "$FINAL"
# The archive is rewritten after every step (and at exit) through a temporary name, so a command
# killed at the device tool's time limit still returns the steps that finished.
pack() { tar -C "$OUT" -czf "$FINAL/.device_logs.tgz" . && mv "$FINAL/.device_logs.tgz" "$FINAL/device_logs.tgz"; }
trap pack EXIT
PKG=$PWD/.devpkg
# stage_device.sh packs the programs into one archive to fit the carry limit.
if [ -f "$PKG/pkg.tar.xz" ]; then tar -C "$PKG" -xJf "$PKG/pkg.tar.xz" || exit 1; fi
export LD_LIBRARY_PATH=$PKG/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,driver_version --format=csv | tee "$OUT/gpu.txt"
status=0
while [ $# -gt 0 ]; do
  step=$1; shift
  case $step in
    tests)
      for t in "$PKG"/bin/*_gpu_*; do
        echo "== $(basename "$t")"
        "$t" 2>&1 | tee "$OUT/$(basename "$t").log" | tail -5 || status=1
      done ;;
    sanitize)
      for t in "$PKG"/bin/*_gpu_*; do
        # The programs named *_large_gpu_* (the MACKO test past 2^31 elements) are left out: under
        # the sanitizers their launches over 5 GB would take most of the device budget.
        case $(basename "$t") in *_large_gpu_*) continue ;; esac
        # The 2:4 GEMM test is no property test (no RC_PARAMS): under racecheck its --quick cases
        # take 74-101 s per tile on an H100, about 7 minutes for five tiles in one process, so each
        # tile runs in a process of its own, side by side (about 100 s in all); the test lists its
        # tiles. It is the one GPU program built from tiles, hence the case by name.
        if [ "$(basename "$t")" = sparse24_gemm_gpu_test ]; then
          names=$("$t" --list-tiles) || { echo "== $(basename "$t") --list-tiles failed"; status=1; continue; }
          mapfile -t tiles <<< "$names"
          for tool in memcheck racecheck; do
            for i in "${!tiles[@]}"; do
              log="$OUT/san_${tool}_sparse24_gemm_gpu_test_tile$i.log"
              (compute-sanitizer --tool $tool --error-exitcode 9 "$t" --quick --tile "${tiles[$i]}" > "$log" 2>&1
               echo $? > "$log.rc") &
            done
            wait
            for i in "${!tiles[@]}"; do
              log="$OUT/san_${tool}_sparse24_gemm_gpu_test_tile$i.log"; rc=$(cat "$log.rc")
              echo "== compute-sanitizer --tool $tool sparse24_gemm_gpu_test --quick --tile '${tiles[$i]}'"
              echo "rc=$rc"; tail -3 "$log"; [ "$rc" = 0 ] || status=1
            done
          done
          continue
        fi
        for tool in memcheck racecheck; do
          echo "== compute-sanitizer --tool $tool $(basename "$t")"
          RC_PARAMS="max_success=${SAN_CASES:-20}" compute-sanitizer --tool $tool --error-exitcode 9 "$t" \
            > "$OUT/san_${tool}_$(basename "$t").log" 2>&1
          rc=$?; echo "rc=$rc"; tail -3 "$OUT/san_${tool}_$(basename "$t").log"; [ $rc = 0 ] || status=1
        done
      done ;;
    ncu)
      args=$1; shift
      ncu --clock-control none --set full --import-source yes -k regex:macko -o "$OUT/macko" \
          "$PKG"/bin/ws_bench_macko --kernels macko --patterns none --warmup 1 --iters 1 --out "$OUT/ncu_results" \
          $args > "$OUT/ncu_run.log" 2>&1
      ncu --import "$OUT/macko.ncu-rep" --page details > "$OUT/ncu.log" 2>&1
      ncu --import "$OUT/macko.ncu-rep" --page raw --csv \
          --metrics l1tex__data_bank_conflicts_pipe_lsu_mem_global_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_lg.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,smsp__inst_executed.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__throughput.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed \
          > "$OUT/ncu_metrics.csv" 2>&1; cat "$OUT/ncu_metrics.csv" | cut -c1-400
      grep -E "Duration|DRAM Throughput|L1/TEX Cache Throughput|Compute \(SM\)|Achieved Occupancy|Registers Per|Executed Ipc|Issue Slots Busy|Bank" "$OUT/ncu.log" | head -40 ;;
    bench_macko|bench_sparse24)
      args=$1; shift
      b="$PKG/bin/ws_${step}"
      echo "== $(basename "$b") $args"
      extra=""; [ "$step" = bench_macko ] && extra="--threads 16"
      # A program run twice keeps both logs: the second is NAME_2.log, and so on.
      log=$(basename "$b"); n=2; while [ -e "$OUT/$log.log" ]; do log="$(basename "$b")_$n"; n=$((n + 1)); done
      "$b" --out "$OUT/results" $extra $args 2>"$OUT/$log.err" | tee "$OUT/$log.log" || status=1
      tail -3 "$OUT/$log.err" ;;
    python)
      py=${WS_PYTHON:-/opt/torch/.venv/bin/python}
      pyout=$(mktemp -d)
      echo "== python: build_ext.sh with $py"
      "$PKG/python/build_ext.sh" "$py" "$PKG/lib" "$pyout" > "$OUT/python_build.log" 2>&1 || { status=1; tail -5 "$OUT/python_build.log"; }
      pypath=$pyout
      "$py" -c "import pytest" 2>/dev/null || pypath=$pyout:$PKG/python/site
      for t in "tests:-m pytest -q -p no:cacheprovider -rs $PKG/python/tests" "overhead:$PKG/python/examples/overhead.py" \
               "sparse_decoder:$PKG/python/examples/sparse_decoder.py"; do
        name=${t%%:*}; args=${t#*:}
        echo "== python $name"
        WS_REQUIRE_GPU=1 PYTHONPATH=$pypath "$py" $args > "$OUT/python_$name.log" 2>&1
        rc=$?; echo "rc=$rc"; tail -6 "$OUT/python_$name.log"; [ $rc = 0 ] || status=1
      done ;;
    run)
      name=$1; cmd=$2; shift 2
      echo "== $name: $cmd"
      (PATH="$PKG/bin:$PATH"; eval "$cmd") > "$OUT/$name.log" 2>&1
      rc=$?; echo "rc=$rc"; tail -4 "$OUT/$name.log"; [ $rc = 0 ] || status=1 ;;
    *) echo "unknown step $step"; status=2 ;;
  esac
  pack
done
exit $status
