#!/usr/bin/env bash
# SASS of the default fp16 kernels (narrow, half output, batch 1): x in shared memory with 8
# elements per lane, and x through L1 with 8, in the new binary and in the base one.
for b in ws_bench_macko ws_bench_macko_base; do
  cuobjdump -sass "$(command -v $b)" > /tmp/$b.sass
  for pat in 'macko_spmv_xs_kernelINS1_12KernelConfigILi4ELi1ELi2ELb0ELb1ELi8ELi1ELb1ELi1ELb0ELi32EEE6__halfS5_' \
             'macko_spmv_kernelINS1_12KernelConfigILi4ELi1ELi2ELb0ELb1ELi8ELi1ELb0ELi1ELb0ELi32EEE6__halfS5_'; do
    out=$OUT/$b.$(echo "$pat" | cut -c1-20).sass
    awk -v p="$pat" '/Function :/ {on = index($0, p) > 0} on' /tmp/$b.sass > "$out"
    echo "$b $pat: $(grep -c '/\*[0-9a-f]*\*/' "$out") instructions, $(grep -c 'SHFL' "$out") SHFL, $(grep -c 'BSSY' "$out") BSSY"
  done
done
