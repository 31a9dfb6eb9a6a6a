#!/usr/bin/env bash
# Builds the release preset here (nvcc needs no GPU) and stages the GPU programs, and the CLI to
# prepare inputs there, in .devpkg/ for the device machine, which has CUDA but none of the Debian
# -dev packages.
set -euo pipefail
cd "$(dirname "$0")/.."
# Extra cmake options (e.g. a -D option of an experiment) pass through: scripts/stage_device.sh -D...
cmake --preset release "$@" >/dev/null
cmake --build --preset release -j2
rm -rf .devpkg && mkdir -p .devpkg/bin .devpkg/lib
find build/release -type f -perm -u+x \( -name '*_gpu_*' -o -name 'ws_bench_macko' -o -name 'ws_bench_sparse24' -o -name 'ws_mma_sp_peak' -o -name 'ws_macko_trace' -o -name 'warpsparse' \) \
  -exec cp {} .devpkg/bin/ \;
# Shared libraries that are not part of the CUDA toolkit or libc travel along.
for b in .devpkg/bin/*; do
  ldd "$b" | awk '/=> \// {print $3}' | grep -v -E '/usr/local/cuda|libc\.so|libm\.so|libgcc_s|libstdc\+\+|ld-linux|libdl|libpthread|librt' \
    | xargs -r -I{} cp -L {} .devpkg/lib/ || true
done
du -sh .devpkg
