#!/usr/bin/env bash
# Counts the sparse tensor-core instructions in the built kernels (needs cuobjdump from the CUDA
# toolkit). Usage: kernels/sparse24/check_sass.sh [build dir, default build/release]
set -euo pipefail
dir=${1:-build/release}
for lib in "$dir"/kernels/sparse24/libws_sparse24_kernels.a "$dir"/kernels/sparse24/libws_sparse24_wgmma.a; do
  echo "== $lib"
  cuobjdump --dump-sass "$lib" | awk '
    /Function :/ { name = $3 }
    /HMMA\.SP/   { hmma[name]++ }
    /HGMMA.*SP|HGMMA\.SP|\.SP.*HGMMA/ { hgmma[name]++ }
    END {
      for (f in hmma)  printf "%6d HMMA.SP   %s\n", hmma[f], f
      for (f in hgmma) printf "%6d HGMMA.SP  %s\n", hgmma[f], f
    }'
  echo "total HMMA.SP: $(cuobjdump --dump-sass "$lib" | grep -c 'HMMA\.SP' || true)"
  echo "total GMMA with SP: $(cuobjdump --dump-sass "$lib" | grep 'GMMA' | grep -c 'SP' || true)"
done
