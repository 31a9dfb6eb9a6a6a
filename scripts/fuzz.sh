#!/usr/bin/env bash
# Fuzzes the readers: builds the libFuzzer targets (the `fuzz` preset: clang, ASan + UBSan) and runs
# each for SECONDS, starting from the committed corpus (proptests/fuzz/corpus/<target>/; new inputs
# go to build/fuzz/corpus/<target>/, not into the repository). A crash, leak, timeout or
# out-of-memory stops the run and leaves the input in build/fuzz/artifacts/; copy it into the
# committed corpus once fixed, so that CTest replays it.
#   scripts/fuzz.sh [SECONDS per target, default 60] [TARGET...]   (default: every target, as
#   proptests/fuzz/CMakeLists.txt lists them: macko_file, safetensors_index, input, ...)
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-60}
shift || true
targets=("$@")
command -v clang++ >/dev/null || { echo "fuzz.sh: clang++ not found (apt install clang)" >&2; exit 1; }
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz -j"$(nproc)" >/dev/null
if [ ${#targets[@]} -eq 0 ]; then
  for b in build/fuzz/proptests/fuzz/ws_fuzz_*; do
    case $b in */ws_fuzz_replay_*) ;; *) targets+=("${b##*/ws_fuzz_}") ;; esac
  done
fi
mkdir -p build/fuzz/artifacts
status=0
for t in "${targets[@]}"; do
  work=build/fuzz/corpus/$t
  log=build/fuzz/$t.log
  mkdir -p "$work"
  echo "fuzz $t: ${secs} s (log: $log)"
  # -timeout: one input taking 10 s is a finding; -rss_limit_mb: the readers' memory budget is 64 MiB.
  if ! build/fuzz/proptests/fuzz/ws_fuzz_"$t" -max_total_time="$secs" -timeout=10 -rss_limit_mb=1024 -max_len=4096 \
       -print_final_stats=1 -artifact_prefix=build/fuzz/artifacts/"$t"- "$work" proptests/fuzz/corpus/"$t" >"$log" 2>&1; then
    status=1
    echo "fuzz $t: FAILED; the last lines of $log:" >&2
    tail -n 30 "$log" >&2
  fi
  grep -E "^stat::(number_of_executed_units|average_exec_per_sec|new_units_added|peak_rss_mb)" "$log" | sed "s/^/  /" || true
done
found=$(find build/fuzz/artifacts -type f | wc -l)
echo "fuzz: $found crash/leak/timeout/oom input(s) in build/fuzz/artifacts"
[ "$found" -eq 0 ] || status=1
exit $status
