// MACKO SpMV kernel (device code). Its warp model is reference/macko/macko_spmv_model.hpp:
// same loads, masks, shuffles and fp32 roundings in the same order, so the outputs agree bit
// for bit. Layout rules come from reference/macko/macko_layout.hpp only.
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <cuda/atomic>

#include "kernels/common/device_types.cuh"
#include "kernels/common/ptx_loads.cuh"
#include "kernels/macko/macko_spmv.hpp"
#include "reference/macko/macko_schedule.hpp"

namespace warpsparse::gpu::detail {

// A lane's vector of E 16-bit values: 16, 8 or 4 bytes.
template <int E> struct ValueVec;
template <> struct ValueVec<8> {
  using type = uint4;
  static __device__ __forceinline__ type load(const void* p) { return ld_stream16(p); }
};
template <> struct ValueVec<4> {
  using type = std::uint64_t;
  static __device__ __forceinline__ type load(const void* p) { return ld_stream8(p); }
};
template <> struct ValueVec<2> {
  using type = std::uint32_t;
  static __device__ __forceinline__ type load(const void* p) { return ld_stream4(p); }
};

// Exclusive prefix sum over segments of L lanes: the shfl_up ladder of paper Algorithm 1 (5 steps
// for a warp, 4 for a 16-lane half). The shuffle's own predicate (source lane inside the segment)
// guards the add, so no lane compare is needed; its c operand ((32 - L) << 8) sets the segment.
template <int L = 32>
__device__ __forceinline__ int warp_exclusive_scan(int v) {
  int acc = v;
#pragma unroll
  for (int off = 1; off < L; off <<= 1) {
    asm("{\n\t.reg .s32 r;\n\t.reg .pred p;\n\t"
        "shfl.sync.up.b32 r|p, %0, %1, %2, 0xffffffff;\n\t"
        "@p add.s32 %0, %0, r;\n\t}"
        : "+r"(acc)
        : "r"(off), "n"((32 - L) << 8));
  }
  return acc - v;
}

// Sum of the 8 delta fields of one lane's word (SWAR: nibbles to bytes, then dp4a sums bytes);
// the paths with fewer elements per lane are 4-bit only and sum in compute_group.
template <int DB, class W>
__device__ __forceinline__ int delta_sum(W w) {
  if constexpr (DB == 4) {
    const unsigned b = (w & 0x0f0f0f0fu) + ((w >> 4) & 0x0f0f0f0fu);
    return static_cast<int>(__dp4a(b, 0x01010101u, 0u));
  } else if constexpr (DB == 8) {
    return static_cast<int>(__dp4a(static_cast<unsigned>(w >> 32), 0x01010101u,
                                   __dp4a(static_cast<unsigned>(w), 0x01010101u, 0u)));
  } else {
    int s = 0;
#pragma unroll
    for (int i = 0; i < macko::kElemsPerLane; ++i)
      s += static_cast<int>((w >> (i * DB)) & W(macko::max_skip(DB)));
    return s;
  }
}

// The NB values of one column of X (Schedule::batch): one vector of 2 * NB bytes, loaded at once.
template <class T, int NB>
struct alignas(sizeof(T) * NB) XPack {
  T v[NB];
};
// Bit-for-bit reinterpretation of a vector register as a pack (a register move after inlining).
template <class P, class V>
__device__ __forceinline__ P as_pack(const V& u) {
  static_assert(sizeof(P) == sizeof(V));
  P r;
  __builtin_memcpy(&r, &u, sizeof(P));
  return r;
}
template <class T, int NB>
__device__ __forceinline__ XPack<T, NB> ldg_pack(const T* p) {
  static_assert(sizeof(T) == 2, "16-bit x");
  if constexpr (NB == 1) return {{__ldg(p)}};
  else if constexpr (NB == 2) return as_pack<XPack<T, NB>>(__ldg(reinterpret_cast<const unsigned*>(p)));
  else if constexpr (NB == 4) return as_pack<XPack<T, NB>>(__ldg(reinterpret_cast<const uint2*>(p)));
  else return as_pack<XPack<T, NB>>(__ldg(reinterpret_cast<const uint4*>(p)));
}

// The gathers of x read through L1 (ld.global.nc). A cursor at a column reads column + k; with
// NB > 1 vectors (x is cols x NB, row-major) each read is the NB-value pack of that column.
// (SharedX below stages x in shared memory instead: Schedule::x_shared.)
template <class T, int NB = 1>
struct GlobalX {  // x read through L1 (ld.global.nc)
  static constexpr bool kByteCursor = false;  // see SharedX
  const T* __restrict__ x;
  __device__ __forceinline__ void ready() const {}  // nothing to wait for
  struct Cursor {
    const T* p;
    __device__ __forceinline__ XPack<T, NB> operator[](unsigned k) const { return ldg_pack<T, NB>(p + k * NB); }
  };
  __device__ __forceinline__ Cursor cursor(int col) const {
    const T* p = x + std::int64_t{col} * NB;
    // Keep p opaque: otherwise nvcc re-associates x + (col + k) into 64-bit adds per element
    // (4 instructions) instead of one IMAD.WIDE.U32 from p.
    asm("" : "+l"(p));
    return {p};
  }
  __device__ __forceinline__ XPack<T, NB> operator()(int col) const { return ldg_pack<T, NB>(x + std::int64_t{col} * NB); }
};

// x staged in shared memory by the block (Schedule::x_shared): the same values, so the same bits.
// At low density the lanes of one gather touch ~20 different L1 lines; in shared memory the same
// gather costs its bank conflicts only (random columns: about 3-4 per 32 lanes).
// The block's copy is issued with cp.async before the warps start their rows; ready() waits for
// it (this thread's copies, then a block-wide barrier), and spmv_rows calls it exactly once per
// warp, after the warp's first row loads are in flight, so the copy overlaps them.
template <class T, int NB = 1, bool SWZ = false>
struct SharedX {
  // Batches always swizzle their packs; one vector only with Schedule::x_swizzle.
  static constexpr bool kSwizzled = NB > 1 || SWZ;
  // An unswizzled copy's cursor also reads at a byte offset (Cursor::at_byte), so fma4 can add
  // doubled column offsets to a 32-bit shared address without scaling each one.
  static constexpr bool kByteCursor = !kSwizzled;
  const T* s;
  __device__ __forceinline__ void ready() const {
    asm volatile("cp.async.wait_all;\n" ::: "memory");
    // bar.sync 0 over the whole block: warps arrive from different places of spmv_rows (their first
    // row, or after the row loop when they have none), each exactly once.
    asm volatile("bar.sync 0;\n" ::: "memory");
  }
  // A swizzled copy (macko::x_pack_slot) is addressed column by column rather than as an offset
  // from the cursor.
  __device__ __forceinline__ XPack<T, NB> at(unsigned c) const {
    if constexpr (kSwizzled) return reinterpret_cast<const XPack<T, NB>*>(s)[macko::x_pack_slot(c, NB)];
    else return {{s[c]}};
  }
  struct Cursor {
    const T* p;
    int col;
    __device__ __forceinline__ XPack<T, NB> operator[](unsigned k) const {
      if constexpr (kSwizzled) return SharedX{p}.at(static_cast<unsigned>(col) + k);
      else return {{p[k]}};
    }
    // The value `bytes` bytes past the cursor's column (2 k for column + k; unswizzled only).
    __device__ __forceinline__ XPack<T, NB> at_byte(unsigned bytes) const {
      static_assert(!kSwizzled);
      return {{*reinterpret_cast<const T*>(reinterpret_cast<const char*>(p) + bytes)}};
    }
  };
  __device__ __forceinline__ Cursor cursor(int col) const {
    if constexpr (kSwizzled) return {s, col};
    else return {s + col, col};
  }
  __device__ __forceinline__ XPack<T, NB> operator()(int col) const { return at(static_cast<unsigned>(col)); }
};

// acc[b][a] += v * x_b for every vector b of the batch: the batch-1 FMA, once per vector.
template <int NB, int A, class T>
__device__ __forceinline__ void fma_pack(float (&acc)[NB][A], int a, T v, const XPack<T, NB>& xp) {
  const float vf = to_f32(v);
#pragma unroll
  for (int b = 0; b < NB; ++b) acc[b][a] = __fmaf_rn(vf, to_f32(xp.v[b]), acc[b][a]);
}
// The same for x at column col of an x source. With one vector the FMA is spelled as it was before
// batches existed: as an fma_pack call, nvcc keeps more registers live in the masked steps (47
// instead of 40 in the 4-element kernel).
template <int NB, int A, class T, class XSrc>
__device__ __forceinline__ void fma_x(float (&acc)[NB][A], int a, const T& v, const XSrc& x, int col) {
  if constexpr (NB == 1)
    acc[0][a] = __fmaf_rn(to_f32(v), to_f32(x(col).v[0]), acc[0][a]);
  else
    fma_pack(acc, a, v, x(col));
}

// Compile-time part of a schedule: row `kVariant` of macko::kCompiledVariants, for DB-bit deltas and
// 32-bit (WIDE = false) or 64-bit element offsets. (nvcc 13.0 cannot name a kernel template after a
// class-type template argument, so the variant is passed by its index in the table.)
template <int kVariant, int DB, bool WIDE>
struct KernelConfig {
  static constexpr macko::Schedule kSched = macko::kernel_key(macko::kCompiledVariants[kVariant].schedule);
  static constexpr int kDeltaBits = DB;
  static constexpr int kAcc = kSched.lane_accumulators;
  static constexpr int kUnroll = kSched.unroll_blocks;
  static constexpr bool kWide = WIDE;
  static constexpr bool kPrefetch = kSched.prefetch;
  static constexpr int kLaneElems = kSched.lane_elems;
  static constexpr int kSplits = kSched.row_splits;
  static constexpr bool kGridSplit = kSched.grid_splits > 1;  // the count is GridSplit::parts
  static constexpr bool kXShared = kSched.x_shared;
  static constexpr int kBatch = kSched.batch;
  static constexpr bool kXSwizzle = kSched.x_swizzle;
  static constexpr int kRowLanes = kSched.row_lanes;  // lanes per row (Schedule::row_lanes)
  static constexpr int kStep = kSched.elems_per_step();           // elements per step
  static constexpr int kSteps = kSched.steps_per_block(DB);       // steps per delta load
  static constexpr int kBlock = kSched.elems_per_block(DB);       // elements per block
  static constexpr int kWordElems = kSched.delta_load_elems(DB);  // elements per lane's delta load
  static constexpr int kGroup = kUnroll * kBlock;  // elements per load group
  // Groups inside their row run as one branch-free block (compute_group). Measured with 8 elements
  // per lane only: 0-2.2 % faster in 43 of 44 cases there; the 4-element kernel of 12288^2 at
  // d = 0.1 lost 9 % with it (docs/macko-kernel.md), so the others keep per-step branches.
  static constexpr bool kWholeGroups = kLaneElems == 8;
  using DeltaWord = std::conditional_t<DB == 8, std::uint64_t, std::uint32_t>;
  using Vec = typename ValueVec<kLaneElems>::type;
  // Element offsets: 32-bit in the narrow kernels (32-bit row pointers), whose matrices the host
  // keeps below kNarrowMaxElements so that no offset the kernel forms (at most a group and a block
  // past a row end) leaves int32; 64-bit in the wide ones.
  using Idx = std::conditional_t<WIDE, std::int64_t, std::int32_t>;
  static_assert(kGroup + kBlock <= kNarrowMarginElements);
  static_assert(kSched.valid(DB));
};

// The registers of one load group: UNROLL blocks of delta words and value vectors.
template <class Cfg>
struct Group {
  typename Cfg::DeltaWord dw[Cfg::kUnroll];
  typename Cfg::Vec vv[Cfg::kUnroll][Cfg::kSteps];
};

// Issues every load of the group starting at element blk0 (lanes past the row end load nothing).
// lane: the lane's index among its row's Cfg::kRowLanes.
template <class Cfg, class T>
__device__ __forceinline__ void load_group(Group<Cfg>& g, typename Cfg::Idx blk0, typename Cfg::Idx end, int lane,
                                           const T* __restrict__ values,
                                           const std::uint8_t* __restrict__ deltas) {
  constexpr int DB = Cfg::kDeltaBits;
  using Idx = typename Cfg::Idx;
#pragma unroll
  for (int u = 0; u < Cfg::kUnroll; ++u) {
    const Idx blk = blk0 + Idx{u} * Cfg::kBlock;
    const Idx wstart = blk + Idx{Cfg::kWordElems} * lane;
    g.dw[u] = 0;
    if (wstart < end) {
      // wstart >= 0: unsigned division is a shift.
      const std::uint8_t* dp = deltas + macko::delta_byte_index(static_cast<std::make_unsigned_t<Idx>>(wstart), DB);
      constexpr int kBytes = Cfg::kSched.delta_load_bytes(DB);
      if constexpr (kBytes == 8)
        g.dw[u] = ld_stream8(dp);
      else if constexpr (kBytes == 4)
        g.dw[u] = ld_stream4(dp);
      else if constexpr (kBytes == 2)
        g.dw[u] = ld_stream2(dp);
      else
        g.dw[u] = ld_stream1(dp);
    }
#pragma unroll
    for (int s = 0; s < Cfg::kSteps; ++s) {
      const Idx chunk = blk + Idx{Cfg::kStep} * s + Cfg::kLaneElems * lane;
      g.vv[u][s] = typename Cfg::Vec{};
      if (chunk < end) g.vv[u][s] = ValueVec<Cfg::kLaneElems>::load(values + chunk);
    }
  }
}

// The delta word of step s of a lane's load: with S > 1 steps per delta load the row's lanes hold
// the words of S steps, and lane `lane` takes its E fields from its word's owner.
template <class Cfg>
__device__ __forceinline__ typename Cfg::DeltaWord step_word(typename Cfg::DeltaWord w, int s, int lane) {
  constexpr int S = Cfg::kSteps, E = Cfg::kLaneElems, L = Cfg::kRowLanes;
  if constexpr (S > 1) {
    w = __shfl_sync(0xffffffffu, w, s * (L / S) + lane / S, L);
    w >>= (lane % S) * E * Cfg::kDeltaBits;
  }
  return w;
}

// The in-lane half of a 4-bit interior step: SWAR running sums of the increments (delta + 1) in
// bytes. Element pairs are summed, and multiplying by 0x01010101 gives inclusive prefix sums (each
// byte <= 8 * 16 = 128). With E < 8 the word holds E nibbles; bytes past E/2 carry garbage never read.
struct Prefix4 {
  std::uint32_t even;  // byte k: increments of elements 0..2k
  std::uint32_t odd;   // byte k: increments of elements 0..2k+1
  int local;           // the lane's sum of increments (at most 8 * 16 = 128)
};
// With kMasked only the elements whose bit is set in own count (a row's first and last steps,
// masked_step4): the others' bytes are cleared, so they add no increment. Bits 0, 2, 4, 6 of m go to
// bytes 0..3 as 0xff: the four shifted copies (x 0x41041) put bit 2k at 8k; where two copies meet
// (bits 6, 12, 18) the carry lands on an odd bit, which the mask drops.
template <int E, bool kMasked = false>
__device__ __forceinline__ Prefix4 prefix4(std::uint32_t mine, unsigned own = 0) {
  auto bytes = [](unsigned m) { return ((m * 0x41041u) & 0x01010101u) * 0xffu; };
  std::uint32_t lo = (mine & 0x0f0f0f0fu) + 0x01010101u;  // elements 0,2,4,6
  if constexpr (kMasked) lo &= bytes(own & 0x55u);
  std::uint32_t hi = ((mine >> 4) & 0x0f0f0f0fu) + 0x01010101u;  // elements 1,3,5,7
  if constexpr (kMasked) hi &= bytes((own >> 1) & 0x55u);
  const std::uint32_t odd = (lo + hi) * 0x01010101u;
  return {odd - hi, odd, static_cast<int>((odd >> (8 * (E / 2 - 1))) & 0xffu)};
}
// The gathers and FMAs of a 4-bit step whose lane starts after column col0 (the row's base plus
// the increments of the lanes before it). With kMasked, only the elements whose bit is set in own
// (a row's first or last step) are gathered and multiplied; the others added nothing to the sums.
template <class Cfg, bool kMasked = false, class T, class XSrc>
__device__ __forceinline__ void fma4(const Prefix4& p, const T* v, int col0, float (&acc)[Cfg::kBatch][Cfg::kAcc],
                                     const XSrc& x, unsigned own = 0) {
  // col0 >= -1 and every offset of an owned element is >= 1, so each read is inside x.
  const auto xb = x.cursor(col0);
  constexpr int E = Cfg::kLaneElems;
  auto owned = [&](int i) { return !kMasked || ((own >> i) & 1u) != 0; };
  // Byte offsets of 16-bit values (an unswizzled copy in shared memory, 8 elements per lane): the
  // prefix bytes doubled in place. Byte k of even sums at most 2k + 1 <= 7 increments of at most 16
  // (112 < 128), so doubling moves no bit into the byte above. Byte k of odd sums 2k + 2, up to 128
  // for the last one, which doubling would overflow: that offset is taken from local (odd's byte
  // E/2 - 1) instead. Otherwise column offsets, read through the cursor's operator[].
  constexpr bool kBytes = XSrc::kByteCursor && sizeof(T) == 2 && E == macko::kElemsPerLane;
  const std::uint32_t even = kBytes ? p.even << 1 : p.even, odd = kBytes ? p.odd << 1 : p.odd;
  auto at = [&](unsigned off) {
    if constexpr (kBytes) return xb.at_byte(off);
    else return xb[off];
  };
#pragma unroll
  for (int k = 0; k < E / 2; ++k) {
    const unsigned ce = __byte_perm(even, 0, 0x4440 + k);
    const unsigned co =
        kBytes && k == E / 2 - 1 ? 2u * static_cast<unsigned>(p.local) : __byte_perm(odd, 0, 0x4440 + k);
    if (owned(2 * k)) fma_pack(acc, (2 * k) % Cfg::kAcc, v[2 * k], at(ce));
    if (owned(2 * k + 1)) fma_pack(acc, (2 * k + 1) % Cfg::kAcc, v[2 * k + 1], at(co));
  }
}

// A 4-bit step holding the row's start (ROMA: the previous row's elements in front) or its end:
// the lane's E elements are owned where rel + i lies in [0, row_len). The SWAR sums of interior_step
// run over the owned elements' increments only (byte masks), so each owned element gets the column
// the element-by-element walk gives it, and the FMAs run in the same order over the same elements.
template <class Cfg, class T, class XSrc>
__device__ __forceinline__ void masked_step4(std::uint32_t mine, const T* v, int base, int rel, int row_len,
                                             float (&acc)[Cfg::kBatch][Cfg::kAcc], const XSrc& x, int& local,
                                             int& excl) {
  constexpr int E = Cfg::kLaneElems, L = Cfg::kRowLanes;
  const int a = min(max(-rel, 0), E), b = min(max(row_len - rel, 0), E);  // owned: elements [a, b)
  const unsigned own = ((1u << b) - 1u) & ~((1u << a) - 1u);
  const Prefix4 p = prefix4<E, true>(mine, own);
  local = p.local;
  excl = warp_exclusive_scan<L>(local);
  fma4<Cfg, true>(p, v, base + excl, acc, x, own);
}

// Two consecutive 4-bit interior steps with one scan: the lane sums of both (each <= 128, so a
// row's 32 lanes sum to at most 4096) ride in the two 16-bit halves of one word, which the shfl_up
// ladder adds without a carry between them; one shuffle from the row's last lane brings both step
// totals. Half the scan's shuffles and adds per step; the columns, so the gathers and the FMAs in
// their order, are those of two interior_step calls.
template <class Cfg, class T, class XSrc>
__device__ __forceinline__ void interior_pair(std::uint32_t w0, std::uint32_t w1, const T* v0, const T* v1, int& base,
                                              float (&acc)[Cfg::kBatch][Cfg::kAcc], const XSrc& x) {
  constexpr int E = Cfg::kLaneElems, L = Cfg::kRowLanes;
  static_assert(Cfg::kDeltaBits == 4 && 32 * E * 16 < 0x10000, "the two halves must not carry into each other");
  const Prefix4 p0 = prefix4<E>(w0), p1 = prefix4<E>(w1);
  const int packed = p0.local | (p1.local << 16);
  const int excl = warp_exclusive_scan<L>(packed);
  const int total = __shfl_sync(0xffffffffu, excl + packed, L - 1, L);
  fma4<Cfg>(p0, v0, base + (excl & 0xffff), acc, x);
  const int base1 = base + (total & 0xffff);
  fma4<Cfg>(p1, v1, base1 + (excl >> 16), acc, x);
  base = base1 + (total >> 16);
}

// One interior step (every element of the row's L lanes belongs to the row, no masks): columns by
// prefix sums from base, gathers of x and fp32 FMAs. local: the lane's sum of increments (delta + 1);
// excl: the sum over the row's lanes before it.
template <class Cfg, class T, class XSrc>
__device__ __forceinline__ void interior_step(typename Cfg::DeltaWord mine, const T* v, int base,
                                              float (&acc)[Cfg::kBatch][Cfg::kAcc], const XSrc& x, int& local,
                                              int& excl) {
  constexpr int DB = Cfg::kDeltaBits;
  constexpr int E = Cfg::kLaneElems;
  constexpr int L = Cfg::kRowLanes;
  using DeltaWord = typename Cfg::DeltaWord;
  if constexpr (DB == 4) {
    const Prefix4 p = prefix4<E>(mine);
    local = p.local;
    excl = warp_exclusive_scan<L>(local);
    fma4<Cfg>(p, v, base + excl, acc, x);
  } else {
    static_assert(E == macko::kElemsPerLane, "fewer elements per lane: 4-bit deltas only");
    local = delta_sum<DB>(mine) + macko::kElemsPerLane;
    excl = warp_exclusive_scan<L>(local);
    int col = base + excl;
#pragma unroll
    for (int i = 0; i < macko::kElemsPerLane; ++i) {
      col += static_cast<int>((mine >> (i * DB)) & DeltaWord(macko::max_skip(DB))) + 1;
      fma_x(acc, i % Cfg::kAcc, v[i], x, col);
    }
  }
}

// Consumes a loaded group: per step, columns by prefix sums, gathers of x and fp32 FMAs. lane: the
// lane's index among its row's L = Cfg::kRowLanes; walk_end: where the warp stops stepping (the row's
// end, or with two rows per warp the longer row's end in this row's offsets).
template <class Cfg, class T, class XSrc>
__device__ __forceinline__ void compute_group(const Group<Cfg>& g, typename Cfg::Idx blk0, typename Cfg::Idx begin,
                                              typename Cfg::Idx end, typename Cfg::Idx walk_end, int lane, int& base,
                                              float (&acc)[Cfg::kBatch][Cfg::kAcc], const XSrc& x) {
  constexpr int DB = Cfg::kDeltaBits;
  using Idx = typename Cfg::Idx;
  constexpr int S = Cfg::kSteps;
  constexpr int E = Cfg::kLaneElems;
  constexpr int L = Cfg::kRowLanes;
  using DeltaWord = typename Cfg::DeltaWord;
  const auto& dw = g.dw;
  const auto& vv = g.vv;
  // A group inside the row (warp-uniform; with two rows per warp, inside both): all its steps are
  // interior, so they run without per-step branches, in one basic block where ptxas may start a
  // step's scan before the previous step's gathers return. The FMAs keep their order.
  if constexpr (Cfg::kWholeGroups) {
    bool whole = blk0 >= begin && blk0 + Cfg::kGroup <= end;  // end <= walk_end: every step is walked
    if constexpr (L < 32) whole = __all_sync(0xffffffffu, whole);
    if (whole) {
      if constexpr (DB == 4 && Cfg::kUnroll * S % 2 == 0 && Cfg::kBatch == 1) {
        // The group's steps two at a time, one scan each pair (interior_pair).
#pragma unroll
        for (int i = 0; i < Cfg::kUnroll * S; i += 2)
          interior_pair<Cfg>(step_word<Cfg>(dw[i / S], i % S, lane), step_word<Cfg>(dw[(i + 1) / S], (i + 1) % S, lane),
                             reinterpret_cast<const T*>(&vv[i / S][i % S]),
                             reinterpret_cast<const T*>(&vv[(i + 1) / S][(i + 1) % S]), base, acc, x);
      } else {
#pragma unroll
        for (int u = 0; u < Cfg::kUnroll; ++u)
#pragma unroll
          for (int s = 0; s < S; ++s) {
            int local, excl;
            interior_step<Cfg>(step_word<Cfg>(dw[u], s, lane), reinterpret_cast<const T*>(&vv[u][s]), base, acc, x,
                               local, excl);
            base += __shfl_sync(0xffffffffu, excl + local, L - 1, L);
          }
      }
      return;
    }
  }
#pragma unroll
  for (int u = 0; u < Cfg::kUnroll; ++u) {
    const Idx blk = blk0 + Idx{u} * Cfg::kBlock;
#pragma unroll
    for (int s = 0; s < S; ++s) {
      const Idx step = blk + Idx{Cfg::kStep} * s;
      if (step >= walk_end) return;  // warp-uniform
      const DeltaWord mine = step_word<Cfg>(dw[u], s, lane);
      const T* v = reinterpret_cast<const T*>(&vv[u][s]);
      bool interior = step >= begin && step + Cfg::kStep <= end;
      if constexpr (L < 32) interior = __all_sync(0xffffffffu, interior);  // both rows' steps
      int local, excl;
      if (interior) {
        interior_step<Cfg>(mine, v, base, acc, x, local, excl);
      } else if constexpr (DB == 4 && E == macko::kElemsPerLane && Cfg::kBatch == 1) {
        // First or last step of the row (one vector, 8 elements per lane: the other kernels keep the
        // element-by-element walk below, with which they hold fewer registers). Offsets relative to
        // the row begin fit in 32 bits: a row emits at most cols < 2^31 elements.
        masked_step4<Cfg>(mine, v, base, static_cast<int>(step - begin) + E * lane, static_cast<int>(end - begin),
                          acc, x, local, excl);
      } else {
        // First or last step of the row: elements before begin (ROMA) or after end are masked.
        // Offsets relative to the row begin fit in 32 bits: a row emits at most cols < 2^31 elements.
        const int rel = static_cast<int>(step - begin) + E * lane;
        const int row_len = static_cast<int>(end - begin);
        int inc[E];
        local = 0;
#pragma unroll
        for (int i = 0; i < E; ++i) {
          const int d = static_cast<int>((mine >> (i * DB)) & DeltaWord(macko::max_skip(DB)));
          inc[i] = (rel + i >= 0 && rel + i < row_len) ? d + 1 : 0;
          local += inc[i];
        }
        excl = warp_exclusive_scan<L>(local);
        int col = base + excl;
#pragma unroll
        for (int i = 0; i < E; ++i) {
          if (inc[i] != 0) {
            col += inc[i];
            fma_x(acc, i % Cfg::kAcc, v[i], x, col);
          }
        }
      }
      // The step's total, broadcast from the row's last lane, moves base on: only an add waits for
      // the previous step's base, not the shuffle.
      base += __shfl_sync(0xffffffffu, excl + local, L - 1, L);
    }
  }
}

#ifdef WS_MACKO_TRACE
// Row timeline for bench/ws_macko_trace only (the library built with WS_MACKO_TRACE; the kernels
// everyone else links have none of this): when g_row_trace is set, lane 0 of each row's first warp
// writes when its row started (before the row bounds load), when its output was stored, its SM and
// its warp.
__device__ RowTrace* g_row_trace = nullptr;
__device__ __forceinline__ unsigned long long trace_now() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
__device__ __forceinline__ unsigned trace_smid() {
  unsigned s;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
  return s;
}
#endif

// Schedule::grid_splits: the parts of each row and the launch's scratch (kernels/common/stream_scratch.hpp).
// parts = 1 in every other kernel.
struct GridSplit {
  int parts = 1;
  float* partials = nullptr;   // rows x parts x batch reduced parts
  unsigned* arrivals = nullptr;  // per row: the parts done so far (0 between launches)
};

// Named barrier over the `threads` threads (a multiple of 32) of the warps that share a row.
__device__ __forceinline__ void row_group_bar(int id, int threads) {
  asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}

// Cfg::kSplits warps per row (Schedule::row_splits), rows strided by the number of row groups in the
// grid (the host may launch fewer than rows). Warp j of a group walks the row's elements
// [split_start(j), split_start(j + 1)) from the column in split_bases, reduces its lanes, and the
// group's first warp adds the parts in order. With Cfg::kRowLanes = 16 a warp's halves take rows 2u
// and 2u + 1 of its unit u and step together until the longer one ends. T: __half or __nv_bfloat16
// (values and x); TY: output.
template <class Cfg, class T, class TY, class XSrc>
__device__ __forceinline__ void spmv_rows(const T* __restrict__ values, const std::uint8_t* __restrict__ deltas,
                                          const void* __restrict__ row_ptr, const XSrc& x, TY* __restrict__ y,
                                          std::int64_t rows, float alpha, float beta,
                                          const std::int32_t* __restrict__ split_bases, GridSplit gs = {}) {
  constexpr int DB = Cfg::kDeltaBits;
  // A compile-time split count keeps the one-warp-per-row kernels as they were (the runtime
  // version cost 9-16 more registers per thread in every variant).
  constexpr int splits = Cfg::kSplits;
  constexpr int L = Cfg::kRowLanes;
  constexpr int kRowsPerWarp = Cfg::kSched.rows_per_warp();
  static_assert(L == 32 || (splits == 1 && Cfg::kBatch == 1), "Schedule::valid: 16 lanes per row, one part, one vector");
  static_assert(!Cfg::kGridSplit || (splits == 1 && L == 32), "Schedule::valid: grid splits walk whole warps");
  // Work units of the grid: rows (row pairs with 16 lanes per row), or rows x parts with grid splits.
  const std::int64_t units = Cfg::kGridSplit ? rows * gs.parts : rows;
  const int lane = threadIdx.x & (L - 1);   // the lane's index among its row's L lanes
  const int half = static_cast<int>(threadIdx.x & 31) / L;  // which of the warp's rows (0 with L = 32)
  const int warp = static_cast<int>(threadIdx.x >> 5);
  const int groups = static_cast<int>(blockDim.x >> 5) / splits;  // rows per block at a time
  const int sp = warp % splits;                                    // this warp's part of the row
  const std::int64_t stride = std::int64_t(gridDim.x) * groups;
  bool x_ready = false;  // x.ready() is called once per warp: before its first arithmetic, or at the end
  for (std::int64_t unit = std::int64_t(blockIdx.x) * groups + warp / splits; unit * kRowsPerWarp < units;
       unit += stride) {  // uniform over the row's warps: no row pointer is read past rows
    // With grid splits the unit is part gp of its row; the parts of a row are adjacent units.
    const std::int64_t row = Cfg::kGridSplit ? unit / gs.parts : unit * kRowsPerWarp + half;
    const int gp = Cfg::kGridSplit ? static_cast<int>(unit - row * gs.parts) : 0;
    const bool has_row = kRowsPerWarp == 1 || row < rows;  // a last odd row leaves the second half idle
#ifdef WS_MACKO_TRACE
    const unsigned long long trace_t0 = trace_now();
#endif
    // Row bounds: lanes 0 and 1 load row_ptr[row] and row_ptr[row + 1], shuffles broadcast them.
    using Idx = typename Cfg::Idx;
    using Ptr = std::conditional_t<Cfg::kWide, std::uint64_t, std::uint32_t>;
    Ptr p = 0;
    if (lane < 2 && has_row) p = static_cast<const Ptr*>(row_ptr)[row + lane];
    const Idx begin = static_cast<Idx>(__shfl_sync(0xffffffffu, p, 0, L));
    const Idx end = static_cast<Idx>(__shfl_sync(0xffffffffu, p, 1, L));
    // This warp's elements: steps from start, owned elements [lo, stop).
    // (With one warp per row these are the ROMA start (macko::RowAligner::aligned_begin; the unit
    // is a power of two), the row start and the row end, spelled out so that the kernel stays the
    // one measured before row splits existed.)
    static_assert((macko::align_unit(DB) & (macko::align_unit(DB) - 1)) == 0);
    Idx start = begin & ~Idx{macko::align_unit(DB) - 1}, stop = end, lo = begin;
    const int part = Cfg::kGridSplit ? gp : sp;  // this warp's part of the row, of `parts`
    const int parts = Cfg::kGridSplit ? gs.parts : splits;
    if constexpr (splits > 1 || Cfg::kGridSplit) {
      const macko::RowAligner ra(begin, end, DB);
      start = static_cast<Idx>(ra.split_start(part, parts));
      stop = static_cast<Idx>(ra.split_start(part + 1, parts));
      lo = start > begin ? start : begin;
    }
    // Where the warp stops stepping, in this row's offsets: with two rows per warp, the longer row's
    // length from its start, so both halves run the same steps (warp-uniform loops and shuffles).
    Idx walk_end = stop;
    if constexpr (kRowsPerWarp > 1) {
      const Idx span = stop - start;
      const Idx other = __shfl_xor_sync(0xffffffffu, span, L);  // the other half's
      walk_end = start + (other > span ? other : span);
    }

    constexpr int NB = Cfg::kBatch;
    float acc[NB][Cfg::kAcc];
#pragma unroll
    for (int b = 0; b < NB; ++b)
#pragma unroll
      for (int k = 0; k < Cfg::kAcc; ++k) acc[b][k] = 0.0f;
    int base = -1;  // column of the last element consumed (the row starts before column 0)
    if (parts > 1 && part > 0 && start < stop) {  // warp-uniform: lane 0 loads the part's starting column
      int b = 0;
      if (lane == 0) b = split_bases[start / macko::kSplitUnit];
      base = __shfl_sync(0xffffffffu, b, 0);
    }

    if constexpr (Cfg::kPrefetch) {
      // Software pipeline: the next group's loads are in flight while this group computes.
      Group<Cfg> cur, nxt;
      if (start < walk_end) load_group<Cfg>(cur, start, stop, lane, values, deltas);
      if (!x_ready) {
        x.ready();
        x_ready = true;
      }
      for (Idx g0 = start; g0 < walk_end; g0 += Cfg::kGroup) {
        if (g0 + Cfg::kGroup < walk_end) load_group<Cfg>(nxt, g0 + Cfg::kGroup, stop, lane, values, deltas);
        compute_group<Cfg, T>(cur, g0, lo, stop, walk_end, lane, base, acc, x);
        cur = nxt;
      }
    } else {
      if (!x_ready) {
        x.ready();
        x_ready = true;
      }
      for (Idx g0 = start; g0 < walk_end; g0 += Cfg::kGroup) {
        Group<Cfg> cur;
        load_group<Cfg>(cur, g0, stop, lane, values, deltas);  // all loads before any arithmetic
        compute_group<Cfg, T>(cur, g0, lo, stop, walk_end, lane, base, acc, x);
      }
    }

    // Per vector: the accumulators in order, then the butterfly over the row's lanes (every lane
    // ends with the sum).
    float sum[NB];
#pragma unroll
    for (int b = 0; b < NB; ++b) {
      sum[b] = acc[b][0];
#pragma unroll
      for (int k = 1; k < Cfg::kAcc; ++k) sum[b] = __fadd_rn(sum[b], acc[b][k]);
#pragma unroll
      for (int off = L / 2; off >= 1; off >>= 1) sum[b] = __fadd_rn(sum[b], __shfl_xor_sync(0xffffffffu, sum[b], off, L));
    }
    if constexpr (splits > 1) {
      __shared__ float parts[32 * NB];  // one reduced part per warp of the block and vector
      if (lane == 0) {
#pragma unroll
        for (int b = 0; b < NB; ++b) parts[warp * NB + b] = sum[b];
      }
      row_group_bar(1 + warp / splits, 32 * splits);
      if (sp == 0) {
        for (int k = 1; k < splits; ++k)
#pragma unroll
          for (int b = 0; b < NB; ++b) sum[b] = __fadd_rn(sum[b], parts[(warp + k) * NB + b]);
      }
      row_group_bar(1 + warp / splits, 32 * splits);  // parts are rewritten for the next row
    }
    // The warp that stores the row: its first (in-block splits), or the last to finish (grid splits).
    bool stores = sp == 0;
    if constexpr (Cfg::kGridSplit) {
      // Lane 0 publishes the part and counts it in with one acquire-release add: the release
      // publishes the part, the acquire (for the last warp) makes every other part visible, and
      // __syncwarp passes that on to the warp's other lanes. One gpu-scope fence fewer than
      // __threadfence on both sides; the split kernel's floor is these round trips.
      float* mine = gs.partials + (row * gs.parts + gp) * NB;
      unsigned arrived = 0;
      if (lane == 0) {
#pragma unroll
        for (int b = 0; b < NB; ++b) mine[b] = sum[b];
        arrived = cuda::atomic_ref<unsigned, cuda::thread_scope_device>(gs.arrivals[row])
                      .fetch_add(1u, cuda::std::memory_order_acq_rel);
      }
      __syncwarp();
      stores = __shfl_sync(0xffffffffu, arrived, 0) == static_cast<unsigned>(gs.parts - 1);
      if (stores) {  // warp-uniform: every other part is published; read them past L1 (ld.cg)
        const float* row_parts = gs.partials + row * gs.parts * NB;
#pragma unroll
        for (int b = 0; b < NB; ++b) {
          // The warp model's grid_part_sum order: lane l adds parts l, l + 32, ..., then the butterfly.
          float s = 0.0f;
          for (int k = lane; k < gs.parts; k += 32) s = __fadd_rn(s, __ldcg(row_parts + k * NB + b));
#pragma unroll
          for (int off = 16; off >= 1; off >>= 1) s = __fadd_rn(s, __shfl_xor_sync(0xffffffffu, s, off));
          sum[b] = s;
        }
        if (lane == 0) gs.arrivals[row] = 0;  // ready for the next launch
      }
    }
    if constexpr (NB == 1) {
      if (stores && lane == 0 && has_row) store_epilogue(y + row, sum[0], alpha, beta);
    } else if (stores && lane < NB) {
      // Lane b stores vector b's element: one coalesced store of the row's NB outputs.
      float mine = sum[0];
#pragma unroll
      for (int b = 1; b < NB; ++b)
        if (lane == b) mine = sum[b];
      store_epilogue(y + row * NB + lane, mine, alpha, beta);
    }
#ifdef WS_MACKO_TRACE
    if (stores && lane == 0 && has_row && g_row_trace != nullptr)
      g_row_trace[row] = RowTrace{trace_t0, trace_now(), trace_smid(),
                                  static_cast<unsigned>(blockIdx.x * (blockDim.x >> 5) + static_cast<unsigned>(warp))};
#endif
  }
  if (!x_ready) x.ready();  // a warp without rows still arrives at the block's barrier
}

// x read through L1 (GlobalX).
template <class Cfg, class T, class TY>
__global__ void macko_spmv_kernel(const T* __restrict__ values, const std::uint8_t* __restrict__ deltas,
                                  const void* __restrict__ row_ptr, const T* __restrict__ x,
                                  TY* __restrict__ y, std::int64_t rows, std::int64_t cols, float alpha,
                                  float beta, const std::int32_t* __restrict__ split_bases, GridSplit gs) {
  static_assert(sizeof(T) == 2, "16-bit values: one lane's E values are one 2E-byte vector");
  static_assert(!Cfg::kXShared, "x_shared schedules run macko_spmv_xs_kernel");
  (void)cols;
  spmv_rows<Cfg>(values, deltas, row_ptr, GlobalX<T, Cfg::kBatch>{x}, y, rows, alpha, beta, split_bases, gs);
}

// x staged in shared memory (Schedule::x_shared). The block copies x (cols x batch elements) once: 16-byte
// words with cp.async (all in flight at once, no registers), then the tail; each warp issues its
// first row's loads before it waits for the copy (SharedX::ready). The grid is persistent (the host
// launches at most the resident blocks), so x is read once per block. __launch_bounds__(1024) holds
// the kernel at 64 registers: two 512-thread blocks per SM (at 69 registers, one).
template <class Cfg, class T, class TY>
__global__ void __launch_bounds__(1024)
    macko_spmv_xs_kernel(const T* __restrict__ values, const std::uint8_t* __restrict__ deltas,
                         const void* __restrict__ row_ptr, const T* __restrict__ x, TY* __restrict__ y,
                         std::int64_t rows, std::int64_t cols, float alpha, float beta,
                         const std::int32_t* __restrict__ split_bases) {
  static_assert(sizeof(T) == 2, "16-bit values: one lane's E values are one 2E-byte vector");
  static_assert(Cfg::kXShared, "schedules without x_shared run macko_spmv_kernel");
  extern __shared__ __align__(16) unsigned char macko_xs[];
  T* xs = reinterpret_cast<T*>(macko_xs);
  const auto xs_base = static_cast<std::uint32_t>(__cvta_generic_to_shared(xs));
  if constexpr (Cfg::kBatch == 1) {
    // 16-byte chunks (to their swizzled place with x_swizzle: macko::x_pack_slot keeps each chunk
    // whole), then the tail.
    auto slot = [](std::int64_t c) { return Cfg::kXSwizzle ? macko::x_pack_slot(c, 1) : c; };
    const std::int64_t words = (reinterpret_cast<std::uintptr_t>(x) & 15) == 0 ? cols / 8 : 0;
    for (std::int64_t i = threadIdx.x; i < words; i += blockDim.x)
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(xs_base + static_cast<std::uint32_t>(2 * slot(8 * i))),
                   "l"(reinterpret_cast<const uint4*>(x) + i)
                   : "memory");
    for (std::int64_t i = words * 8 + threadIdx.x; i < cols; i += blockDim.x) xs[slot(i)] = x[i];
  } else {
    // One cp.async per column: its pack (2 * batch bytes, aligned: the host checks x) to its
    // swizzled slot (macko::x_pack_slot).
    constexpr int kPackBytes = 2 * Cfg::kBatch;
    for (unsigned c = threadIdx.x; c < cols; c += blockDim.x) {
      const std::uint32_t dst = xs_base + kPackBytes * macko::x_pack_slot(c, Cfg::kBatch);
      const T* src = x + std::int64_t{c} * Cfg::kBatch;
      if constexpr (kPackBytes == 16)
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(src) : "memory");
      else
        asm volatile("cp.async.ca.shared.global [%0], [%1], %2;\n" ::"r"(dst), "l"(src), "n"(kPackBytes) : "memory");
    }
  }
  spmv_rows<Cfg>(values, deltas, row_ptr, SharedX<T, Cfg::kBatch, Cfg::kXSwizzle>{xs}, y, rows, alpha, beta,
                 split_bases);
}

}  // namespace warpsparse::gpu::detail
