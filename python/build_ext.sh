#!/usr/bin/env bash
# Builds the _warpsparse extension for another Python against a carried libws_py_core.so (the GPU
# machine's Python has pybind11 from pip but none of the library's -dev packages; the glue needs
# only pybind11 and src/py_api.hpp). Puts the module, the core and the package's .py files in
# OUTDIR/warpsparse, importable with PYTHONPATH=OUTDIR.
# Usage: python/build_ext.sh PYTHON LIBDIR OUTDIR   (LIBDIR holds libws_py_core.so)
set -euo pipefail
[ $# -eq 3 ] || { echo "usage: $0 PYTHON LIBDIR OUTDIR" >&2; exit 2; }
PY=$1 LIBDIR=$(cd "$2" && pwd) OUT=$3
HERE=$(cd "$(dirname "$0")" && pwd)
PKG=$OUT/warpsparse
mkdir -p "$PKG"
cp "$LIBDIR/libws_py_core.so" "$PKG/"
cp "$HERE"/warpsparse/*.py "$PKG/"
SUFFIX=$("$PY" -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')
# pybind11 from pip names its headers; Debian's pybind11-dev puts them on the default path.
INCLUDES=$("$PY" -m pybind11 --includes 2>/dev/null || "$PY" -c 'import sysconfig; print("-I" + sysconfig.get_paths()["include"])')
# Hidden visibility, as pybind11_add_module builds it: the module exports only its init function.
${CXX:-c++} -O2 -shared -fPIC -fvisibility=hidden -std=c++20 $INCLUDES "$HERE"/src/bindings*.cpp \
  -L"$PKG" -lws_py_core -Wl,-rpath,'$ORIGIN' -o "$PKG/_warpsparse$SUFFIX"
echo "$PKG/_warpsparse$SUFFIX"
