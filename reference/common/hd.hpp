// WS_HD marks small pure helpers that both host code and CUDA kernels call.
// Dependency-free on purpose: layout headers include only this and <cstdint>.
#pragma once
#if defined(__CUDACC__)
#define WS_HD __host__ __device__ __forceinline__
#else
#define WS_HD inline
#endif
