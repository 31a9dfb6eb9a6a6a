// WS_HD marks small pure helpers that both host code and CUDA kernels call.
// Dependency-free on purpose: layout headers include only this and <cstdint>.
#pragma once
#if defined(__CUDACC__)
#define WS_HD __host__ __device__ __forceinline__
#else
#define WS_HD inline
#endif

#include <cstdint>

namespace warpsparse {

// x rounded up to a multiple of a (a > 0, x >= 0).
WS_HD constexpr std::int64_t round_up(std::int64_t x, std::int64_t a) { return (x + a - 1) / a * a; }

}  // namespace warpsparse
