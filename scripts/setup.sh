#!/usr/bin/env bash
# Installs the Debian packages warpsparse builds with, when any is missing. Nothing else is
# downloaded: CUDA (nvcc) is expected at /usr/local/cuda and is optional.
set -euo pipefail
pkgs=(cmake ninja-build g++ libeigen3-dev libboost-math-dev catch2 librapidcheck-dev gnuplot-nox
      nlohmann-json3-dev libcli11-dev libfmt-dev
      clang libclang-rt-dev   # libFuzzer for the reader fuzz targets (scripts/fuzz.sh)
      libzip-dev              # .npz checkpoints (zip archives of .npy files)
      python3-numpy           # the numpy round-trip test of the tensor readers and writers
      pybind11-dev python3-dev python3-pytest  # the Python package (python/) and its tests
      chromium)               # the reports' real-browser test (headless, 1400 px)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
if [ -x /usr/local/cuda/bin/nvcc ]; then
  echo "setup: nvcc found ($(/usr/local/cuda/bin/nvcc --version | tail -1)); CUDA kernels will be built"
else
  echo "setup: no nvcc at /usr/local/cuda/bin; building host code only"
fi
