// Streaming bounds of the EC-SpMV kernel, for ws_bench_macko (`--kernels ec_stream,ec_stream_x`);
// not part of the kernels' API (built as ws_kernels_ec_stream, which only the benchmark links).
// They run kernel 1's plan as it is (the same launch per set, grid, warps per block, pieces, lane
// starts and step walk: the same device functions, kernels/ec/ec_spmv.cuh) and issue its loads,
// but fold what they load into an XOR instead of computing with it:
//   loads    (`ec_stream`): the piece table, the lane starts and every step's deltas and values;
//            no x gather, no FMA.
//   gathers  (`ec_stream_x`): the same, plus each slot's column walk (col += delta) and its x[col]
//            gather; still no FMA, no butterfly, no partials and no second (row) pass.
// So EC over `loads` is what its arithmetic and gathers add to its bytes in its own order, and EC
// over `gathers` what the FMAs, the reductions and kernel 2 add.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/ec/ec_spmv.hpp"

namespace warpsparse::gpu {

enum class EcStream { loads, gathers };

// sink: a.pieces words; each warp that ran a piece writes one (the XOR of its lanes' folds) at the
// index of its first piece. x (cols elements) is read only by EcStream::gathers and may be null
// otherwise.
template <class T>
void ec_stream(const DeviceEc<T>& a, EcStream what, const T* x, std::uint32_t* sink, cudaStream_t stream = nullptr);

}  // namespace warpsparse::gpu
