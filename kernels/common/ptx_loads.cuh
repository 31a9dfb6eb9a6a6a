// Streaming loads for bytes a kernel reads once: they bypass L1 (ld.global.nc.L1::no_allocate) and
// keep it for data that is reused, such as x. Shared by the MACKO kernel and the streaming floors
// the benchmark measures beside it.
#pragma once
#include <cstdint>

namespace warpsparse::gpu {

__device__ __forceinline__ uint4 ld_stream16(const void* p) {
  uint4 r;
  asm volatile("ld.global.nc.L1::no_allocate.v4.u32 {%0,%1,%2,%3}, [%4];"
               : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w)
               : "l"(p));
  return r;
}
__device__ __forceinline__ std::uint64_t ld_stream8(const void* p) {
  std::uint64_t r;
  asm volatile("ld.global.nc.L1::no_allocate.u64 %0, [%1];" : "=l"(r) : "l"(p));
  return r;
}
__device__ __forceinline__ std::uint32_t ld_stream4(const void* p) {
  std::uint32_t r;
  asm volatile("ld.global.nc.L1::no_allocate.u32 %0, [%1];" : "=r"(r) : "l"(p));
  return r;
}
__device__ __forceinline__ std::uint32_t ld_stream2(const void* p) {
  unsigned short r;
  asm volatile("ld.global.nc.L1::no_allocate.u16 %0, [%1];" : "=h"(r) : "l"(p));
  return r;
}
__device__ __forceinline__ std::uint32_t ld_stream1(const void* p) {
  unsigned short r;
  asm volatile("ld.global.nc.L1::no_allocate.u8 %0, [%1];" : "=h"(r) : "l"(p));
  return r;
}
}  // namespace warpsparse::gpu
