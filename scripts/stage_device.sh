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
# The Python package: its core library (built here with every dependency) and what the device's
# Python needs to build the glue against it (python/build_ext.sh) and to test and time it.
python_stage=(python/build_ext.sh python/src/py_api.hpp python/src/dlpack_abi.hpp python/src/bindings.hpp
              python/src/bindings.cpp python/src/bindings_cuda.cpp python/warpsparse python/tests python/examples)
if [ -f build/release/python/warpsparse/libws_py_core.so ]; then
  cp build/release/python/warpsparse/libws_py_core.so .devpkg/lib/
  cp -r --parents "${python_stage[@]}" .devpkg/
  # pytest for a device Python that lacks it (pure Python, Debian's python3-pytest and its dependencies).
  mkdir -p .devpkg/python/site
  for m in pytest _pytest pluggy iniconfig packaging attr attrs py.py; do
    [ -e /usr/lib/python3/dist-packages/$m ] && cp -r /usr/lib/python3/dist-packages/$m .devpkg/python/site/
  done
fi
# Shared libraries that are not part of the CUDA toolkit or libc travel along.
for b in .devpkg/bin/* .devpkg/lib/libws_py_core.so; do
  [ -e "$b" ] || continue
  ldd "$b" | awk '/=> \// {print $3}' | grep -v -E '/usr/local/cuda|libc\.so|libm\.so|libgcc_s|libstdc\+\+|ld-linux|libdl|libpthread|librt' \
    | xargs -r -I{} cp -L {} .devpkg/lib/ || true
done
# The device tool carries at most 64 MiB, and the staged programs are near 90: their symbols are
# stripped (the GPU code lives in .nv_fatbin, which strip keeps) and the package travels as one xz
# archive (about 17 MiB), which device_run.sh unpacks before its first step.
find .devpkg/bin .devpkg/lib -type f -exec strip --strip-unneeded {} +
du -sh .devpkg
pkg=$(mktemp --suffix=.tar.xz)
tar -C .devpkg -cf - . | xz -T0 -6 > "$pkg"
chmod 644 "$pkg" && rm -rf .devpkg && mkdir .devpkg && mv "$pkg" .devpkg/pkg.tar.xz
du -sh .devpkg/pkg.tar.xz
