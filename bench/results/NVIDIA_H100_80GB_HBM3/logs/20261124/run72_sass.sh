#!/usr/bin/env bash
# SASS instruction counts of every MACKO kernel in the base and new ws_bench_macko (run 72),
# and the whole SASS of the d <= 0.1 tall default (fp16, 4 elements per lane, narrow) in both.
K='macko_spmv_kernelINS1_12KernelConfigILi4ELi1ELi2ELb0ELb1ELi4ELi1ELb0ELi1ELb0EEE6__halfS5_'
for tag in base new; do
  b=.devpkg/bin/ws_bench_macko; [ $tag = base ] && b=.devpkg_base/bin/ws_bench_macko
  cuobjdump -sass $b > /tmp/all_$tag.sass
  awk '/Function :/ {f=$3} /\/\*[0-9a-f]{4}\*\// {n[f]++} END {for (k in n) print n[k], k}' /tmp/all_$tag.sass \
    | grep macko | sort -k2 > $OUT/sass_count_$tag.txt
  awk -v k="$K" '/Function :/ {on = index($3, k) > 0} on' /tmp/all_$tag.sass > $OUT/sass_e4_narrow_$tag.txt
  wc -l $OUT/sass_count_$tag.txt $OUT/sass_e4_narrow_$tag.txt
done
paste $OUT/sass_count_base.txt $OUT/sass_count_new.txt | awk '{b+=$1; n+=$3} END {print "total instructions: base", b, "new", n}'
