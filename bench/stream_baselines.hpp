// Streaming baselines that bound what MACKO SpMV can reach (ws_bench_macko --kernels read,row_stream,row_stream_il):
//   * read: every 16-byte word of two device arrays read once, coalesced over the whole grid, with
//     nothing else to do: the read-only ceiling of the same bytes (the copy baseline also writes).
//   * row_stream: the loads of the default MACKO schedule for 4-bit deltas (one warp per row, ROMA
//     start, 8 values and one delta word per lane per 256-element block, two blocks per group, the
//     next group in flight) with the arithmetic replaced by an XOR of the loaded words. Its time
//     is what MACKO's access pattern costs before any x gather, prefix sum or FMA.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace warpsparse::bench {

// Reads a (a_bytes) and b (b_bytes) in 16-byte words (a trailing partial word is skipped); returns
// the bytes read. sink receives one word only if the XOR of everything hits a fixed constant.
std::uint64_t launch_read_stream(const void* a, std::size_t a_bytes, const void* b, std::size_t b_bytes,
                                 std::uint32_t* sink, cudaStream_t stream);

// The MACKO arrays (fp16 or bf16 values, 4-bit deltas, 32- or 64-bit row pointers); y[r] gets the
// XOR of row r's loaded words. groups_ahead (1, 2 or 4): groups in flight while one is consumed;
// 1 is the kernel's own prefetch (`row_stream`), 2 and 4 are `row_stream2` / `row_stream4`.
// interleaved (`row_stream_il`, one group ahead): values is a block-interleaved copy of the same
// elements (deltas unused), each 256-element block's 512 value bytes followed by its 128 delta
// bytes, so a group's 1280 bytes are one contiguous range instead of two (1024 + 256 bytes in two
// arrays). Only the layout differs: what an interleaved format would change in MACKO's access pattern.
void launch_macko_row_stream(const void* values, const std::uint8_t* deltas, const void* row_ptr, bool wide_row_ptr,
                             std::int64_t rows, std::uint32_t* y, int groups_ahead, cudaStream_t stream,
                             bool interleaved = false);
// The interleaved copy's size for `elements` stored elements (its contents do not matter).
std::size_t macko_interleaved_bytes(std::int64_t elements);

}  // namespace warpsparse::bench
